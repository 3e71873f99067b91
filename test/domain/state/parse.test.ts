import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ANY_INDEX, type JsonPathPattern } from '../../../src/domain/state/json-spans';
import { parseStateV4, readStateOutlineV4, readStateV4, StateFormatError } from '../../../src/domain/state/parse';

const fixture = (name: string): string => readFileSync(join(__dirname, '../../fixtures/state', name), 'utf8');

function formatError(text: string): StateFormatError {
  try {
    parseStateV4(text);
  } catch (e) {
    if (e instanceof StateFormatError) return e;
    throw e;
  }
  throw new Error('expected a StateFormatError');
}

describe('parseStateV4', () => {
  it('gives the structural view of every resource, instance keys, deposed markers and attributes', () => {
    const parsed = parseStateV4(fixture('deposed-tainted.tfstate'));
    expect(parsed.serial).toBe(7);
    expect(parsed.lineage).toBe('3f5c1c2e-8a4b-4d7e-9f1a-2b3c4d5e6f70');
    expect(parsed.resources.map((r) => [r.mode, r.type, r.name, r.instances.map((i) => [i.index_key, i.deposed])])).toEqual([
      ['managed', 'kubernetes_deployment', 'main', [[0, undefined], [0, '00c0ffee'], [1, undefined]]],
      ['managed', 'kubernetes_service', 'svc', [[undefined, undefined]]],
    ]);
    expect(parsed.resources[0].instances[1].attributes?.id).toBe('coder/old');
  });

  it('keeps fields it does not know, at every level', () => {
    const { state } = parseStateV4(fixture('identity-private.tfstate'));
    expect(state.future_top_level_field).toEqual({ keep: 'me' });
    const instance = state.resources[0].instances[0];
    expect(instance.identity).toEqual({ api_version: 'apps/v1', kind: 'Deployment', name: 'idp', namespace: 'coder' });
    expect(instance.future_instance_field).toEqual({ x: [1, 2] });
    expect(typeof instance.private).toBe('string');
  });

  it('says where the JSON breaks, without quoting it', () => {
    const error = formatError(fixture('bad-json.tfstate'));
    expect(error.message).toMatch(/not valid JSON: line 6, column 3/);
    expect(error.message).not.toContain('outputs');
  });

  it('names the version of an older state and what is required', () => {
    const error = formatError(fixture('v3.tfstate'));
    expect(error.message).toContain('format version 3');
    expect(error.message).toContain('Terraform 0.12');
    expect(formatError('{"serial": 1}').message).toContain('no "version" field');
  });

  it('names the missing or mistyped field of a v4 state', () => {
    expect(formatError('{"version": 4, "serial": 1, "lineage": "x"}').message).toMatch(/resources: missing/);
    expect(formatError('{"version": 4, "serial": 1, "lineage": "x", "resources": [{"mode": "managed", "type": 7, "name": "n", "instances": []}]}').message).toMatch(
      /resources\[0\]\.type/,
    );
    expect(formatError('[4]').message).toContain('not a JSON object');
  });
});

describe('readStateOutlineV4', () => {
  const patterns: JsonPathPattern[] = [['serial'], ['resources', ANY_INDEX, 'type'], ['resources', ANY_INDEX, 'instances', ANY_INDEX, 'dependencies', ANY_INDEX]];
  const opaque = ['attributes', 'sensitive_attributes', 'identity', 'private'];
  const outcome = (read: () => unknown): unknown => {
    try {
      return read();
    } catch (e) {
      if (e instanceof StateFormatError) return e.message;
      throw e;
    }
  };

  it.each(readdirSync(join(__dirname, '../../fixtures/state')).filter((f) => f.endsWith('.tfstate')))(
    '%s: the same spans and refusals as readStateV4, and its state with the blobs emptied',
    (name) => {
      const text = fixture(name);
      const full = outcome(() => readStateV4(text, patterns));
      const outline = outcome(() => readStateOutlineV4(text, patterns));
      if (typeof full === 'string') return expect(outline).toBe(full);
      const { parsed, spans } = full as ReturnType<typeof readStateV4>;
      const expected = structuredClone(parsed.state);
      if (expected.outputs) expected.outputs = {};
      for (const resource of expected.resources) {
        for (const instance of resource.instances) {
          for (const key of opaque) {
            const value = instance[key];
            if (Object.hasOwn(instance, key)) instance[key] = Array.isArray(value) ? [] : typeof value === 'string' ? '' : value !== null && typeof value === 'object' ? {} : value;
          }
        }
      }
      expect(outline).toEqual({ outline: expected, spans });
    },
  );

  it.each([
    ['outputs', (doc: Record<string, unknown>, v: unknown) => (doc.outputs = v)],
    ...opaque.map((key): [string, (doc: Record<string, unknown>, v: unknown) => unknown] => [
      key,
      (doc, v) => ((doc.resources as { instances: Record<string, unknown>[] }[])[0].instances[0][key] = v),
    ]),
  ])('%s: refused or accepted as readStateV4 does, whatever its kind and content', (_, put) => {
    const values = [null, true, 0, -1.5, '', 'x', 'eyJzY2hlbWFfdmVyc2lvbiI6IjEifQ==', [], [1, 'a'], [[{ type: 'get_attr', value: 'x' }]], {}, { a: 1 }, { id: 'coder/x', n: [null] }];
    for (const value of values) {
      const doc = JSON.parse(fixture('count.tfstate')) as Record<string, unknown>;
      put(doc, value);
      const text = JSON.stringify(doc, null, 2);
      const refusal = (read: () => unknown) => {
        const result = outcome(read);
        return typeof result === 'string' ? result : 'accepted';
      };
      expect([JSON.stringify(value), refusal(() => readStateOutlineV4(text, patterns))]).toEqual([JSON.stringify(value), refusal(() => readStateV4(text, patterns))]);
    }
  });
});
