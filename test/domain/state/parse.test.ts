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

  it('names a UTF-16 or byte-order-marked file as such, and how to pull it again, not "line 1, column 1"', () => {
    // What readFileSync(…, 'utf8') gives for a state saved by Windows PowerShell's ">" (UTF-16LE with
    // its byte-order mark), by Out-File without one, and by Out-File -Encoding utf8 (UTF-8 with a BOM).
    const state = '{\n  "version": 4,\n  "serial": 1,\n  "lineage": "l",\n  "resources": []\n}\n';
    const utf16WithBom = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(state, 'utf16le')]).toString('utf8');
    const utf16 = Buffer.from(state, 'utf16le').toString('utf8');
    const utf16be = Buffer.from(state, 'utf16le').swap16().toString('utf8');
    const utf8Bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(state)]).toString('utf8');
    for (const text of [utf16WithBom, utf16, utf16be]) {
      const message = formatError(text).message;
      expect(message).toContain('is UTF-16 text, not plain UTF-8 JSON');
      expect(message).toContain('coder state pull WORKSPACE dev.tfstate');
      expect(message).not.toContain('line 1');
    }
    expect(formatError(utf8Bom).message).toContain('starts with a byte-order mark, not plain UTF-8 JSON');
    // The splicing reader refuses the same way.
    expect(() => readStateOutlineV4(utf8Bom, [])).toThrow(/byte-order mark/);
    // Elsewhere a NUL or a BOM is only a syntax error, said as one.
    expect(formatError(`{\n \u0000`).message).toBe("The state is not valid JSON: line 2, column 2: expected a quoted object key.");
    expect(formatError(`{}\uFEFF`).message).toMatch(/^The state is not valid JSON: line 1, column 3/);
    expect(formatError(`\uFFFD{}`).message).toMatch(/^The state is not valid JSON: line 1, column 1/);
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

describe('parseStateV4 refusals, word for word', () => {
  const shape = 'The state does not have the shape of a Terraform v4 state: ';
  const state = (fields: string) => `{"version": 4, "serial": 1, "lineage": "x", ${fields}}`;
  const resource = (fields: string) => `{"mode": "managed", "type": "kubernetes_secret", "name": "s", "instances": [], ${fields}}`;

  it.each([
    ['a string version', '{"version": "4"}', 'The state has format version "4"; wsmigrate needs a format version 4 state, which Terraform 0.12 and later write. Let a Terraform 0.12+ run write this state once (for example a refresh-only apply), then try again.'],
    ['a null version', '{"version": null}', 'The state has format version null; wsmigrate needs'],
    ['a fractional serial', state('"resources": [], "serial": 1.5'), 'serial: expected a whole number.'],
    ['a negative serial', state('"resources": [], "serial": -1'), 'serial: Too small: expected number to be >=0.'],
    ['a mistyped field', state('"resources": [{"mode": "managed", "type": 7, "name": "n", "instances": []}]'), 'resources[0].type: Invalid input: expected string, received number.'],
    ['a missing field, deep', state('"resources": [{"mode": "managed", "type": "t", "name": "n"}]'), 'resources[0].instances: missing.'],
    [
      'six issues: five named, the rest counted',
      '{"version": 4, "serial": "1", "lineage": 2, "resources": {}, "outputs": [], "check_results": 3, "terraform_version": 1}',
      'terraform_version: Invalid input: expected string, received number; serial: Invalid input: expected number, received string; lineage: Invalid input: expected string, received number; outputs: expected a JSON object; resources: Invalid input: expected array, received object (and 1 more).',
    ],
    ['an instance key of another kind', state(`"resources": [${resource('"instances": [{"index_key": true}]')}]`), 'resources[0].instances[0].index_key: Invalid input.'],
    ['attributes that are not an object', state(`"resources": [${resource('"instances": [{"attributes": []}]')}]`), 'resources[0].instances[0].attributes: expected a JSON object.'],
    ['attributes that are a string', state(`"resources": [${resource('"instances": [{"attributes": "{}"}]')}]`), 'resources[0].instances[0].attributes: expected a JSON object.'],
    [
      'a whitespace lineage',
      '{"version": 4, "serial": 1, "lineage": " \\t", "resources": []}',
      "The state has an empty lineage; Terraform gives every state one, and wsmigrate uses it to tell one workspace's state from another's. Pull the state again from Coder (coder state pull) instead of using an edited copy.",
    ],
    [
      'a resource listed twice (the first one named, the module and mode in the address)',
      state(`"resources": [${resource('"module": "module.m[0]", "mode": "data"')}, ${resource('"module": "module.m[0]"')}, ${resource('"module": "module.m[0]", "mode": "data"')}]`),
      'The state lists module.m[0].data.kubernetes_secret.s twice (resources[0] and resources[2]); Terraform never writes that, so the file was edited or merged by hand. Pull the state again from Coder (coder state pull) and try again.',
    ],
    ['the same type and name at the root and in a module is no repeat', state(`"resources": [${resource('"module": "module.m"')}, ${resource('"module": ""')}]`), undefined],
  ])('%s', (_, text, expected) => {
    let message: string | undefined;
    try {
      parseStateV4(text);
    } catch (e) {
      if (!(e instanceof StateFormatError)) throw e;
      message = e.message;
    }
    if (expected === undefined) return expect(message).toBeUndefined();
    const whole = expected.startsWith('The state') ? expected : shape + expected;
    return expected.endsWith('.') ? expect(message).toBe(whole) : expect(message?.startsWith(whole)).toBe(true);
  });

  it('reads the terraform_version when there is one, and leaves it out when not', () => {
    expect(parseStateV4(state('"resources": [], "terraform_version": "1.9.8"')).terraformVersion).toBe('1.9.8');
    expect(Object.hasOwn(parseStateV4(state('"resources": []')), 'terraformVersion')).toBe(false);
  });

  it('gives each view only the fields the instance has (null attributes are none)', () => {
    const { resources } = parseStateV4(
      state(`"resources": [${resource('"module": "module.m", "instances": [{"index_key": "k", "deposed": "d1", "attributes": {"id": "x"}}, {"attributes": null}, {}]')}]`),
    );
    expect(resources).toEqual([
      { module: 'module.m', mode: 'managed', type: 'kubernetes_secret', name: 's', instances: [{ index_key: 'k', deposed: 'd1', attributes: { id: 'x' } }, {}, {}] },
    ]);
    expect(resources[0].instances.map((i) => Object.keys(i))).toEqual([['index_key', 'deposed', 'attributes'], [], []]);
    expect(Object.keys(parseStateV4(state(`"resources": [${resource('"instances": []')}]`)).resources[0])).toEqual(['mode', 'type', 'name', 'instances']);
  });

  it('refuses a state that is not an object, word for word', () => {
    for (const text of ['[4]', 'null', '4']) {
      expect([text, formatError(text).message]).toEqual([text, 'The state is not a JSON object; a Terraform state file is an object with "version": 4.']);
    }
  });
});
