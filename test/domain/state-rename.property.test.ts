import fc from 'fast-check';
import { renameStateTypes } from '../../src/domain/state-rename';
import { lookupDeprecated, NEVER_TOUCH, TYPE_MAP, type ResourceMode } from '../../src/domain/type-map';
import { expectedRename, renameAddress, sameReplacement, textPieces } from './state/rename-oracle';
import { propertyRuns } from '../harness/property-runs';

const managedTypes = [
  ...TYPE_MAP.filter((m) => m.mode === 'managed').flatMap((m) => [m.deprecated, m.replacement]),
  ...NEVER_TOUCH,
  'coder_agent',
  'coder_metadata',
];
const dataTypes = [...TYPE_MAP.filter((m) => m.mode === 'data').flatMap((m) => [m.deprecated, m.replacement]), 'coder_workspace', 'kubernetes_all_namespaces'];
const names = ['main', 'home', 'kubernetes_secret', 'x-1'];
const modules = [undefined, 'module.app', 'module.app[0]', 'module.kubernetes_deployment["a b"]', 'module.a["k"].module.b'];
const BIG = '__big_integer__';

const dependency = fc
  .tuple(fc.constantFrom(undefined, 'module.app', 'module.kubernetes_secret'), fc.boolean(), fc.constantFrom(...names))
  .chain(([module, isData, name]) =>
    fc.constantFrom(...(isData ? dataTypes : managedTypes)).map((type) => `${module ? `${module}.` : ''}${isData ? 'data.' : ''}${type}.${name}`),
  );

/** Attribute blobs of any JSON shape, with integers too large for a double spliced in as raw digits. */
const attributes = fc.dictionary(
  fc.string({ maxLength: 8 }),
  fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.bigInt({ min: 2n ** 60n, max: 2n ** 80n }).map((n) => `${BIG}${n}`)),
  { maxKeys: 5 },
);

const instance = fc.record(
  {
    index_key: fc.oneof(fc.nat({ max: 30 }), fc.string({ maxLength: 6 })),
    status: fc.constant('tainted'),
    deposed: fc.stringMatching(/^[0-9a-f]{8}$/),
    schema_version: fc.nat({ max: 1 }),
    attributes,
    sensitive_attributes: fc.constant([[{ type: 'get_attr', value: 'data' }]]),
    identity: fc.record({ kind: fc.string(), name: fc.string() }),
    private: fc.base64String({ maxLength: 24 }),
    dependencies: fc.array(dependency, { maxLength: 4 }),
    create_before_destroy: fc.constant(true),
  },
  { requiredKeys: ['schema_version', 'attributes'] },
);

const resource = fc
  .tuple(fc.constantFrom<ResourceMode>('managed', 'data'), fc.constantFrom(...modules), fc.constantFrom(...names), fc.array(instance, { maxLength: 4 }))
  .chain(([mode, module, name, instances]) =>
    fc.constantFrom(...(mode === 'data' ? dataTypes : managedTypes)).map((type) => ({
      ...(module ? { module } : {}),
      mode,
      type,
      name,
      provider: 'provider["registry.terraform.io/hashicorp/kubernetes"]',
      instances,
    })),
  );

/** Resources whose renamed addresses are all distinct (a collision is refused, tested elsewhere). */
const resources = fc.uniqueArray(resource, {
  maxLength: 8,
  selector: (r) => `${r.module ?? ''}|${r.mode}|${sameReplacement(r.mode, r.type) ?? r.type}|${r.name}`,
});

const checkResults = fc.array(
  fc.record({
    object_kind: fc.constantFrom('resource', 'output'),
    config_addr: dependency,
    status: fc.constantFrom('pass', 'fail', 'unknown'),
    objects: fc.array(dependency.map((a) => ({ object_addr: a, status: 'pass' })), { maxLength: 2 }),
  }),
  { maxLength: 3 },
);

const layout = fc.record({ indent: fc.constantFrom(0, 2, '\t'), crlf: fc.boolean() });

const stateText = fc
  .record({ serial: fc.nat({ max: 1_000_000 }), resources, checkResults, layout })
  .map(({ serial, resources: rs, checkResults: checks, layout: { indent, crlf } }) => {
    const doc = { version: 4, terraform_version: '1.8.5', serial, lineage: 'a-lineage', outputs: {}, resources: rs, check_results: checks };
    const text = JSON.stringify(doc, null, indent).replace(new RegExp(`"${BIG}(\\d+)"`, 'g'), '$1');
    return crlf ? text.replace(/\n/g, '\r\n') : text;
  });

function hasDifferent(text: string): boolean {
  return (JSON.parse(text).resources as { mode: ResourceMode; type: string }[]).some((r) => lookupDeprecated(r.mode, r.type)?.compat === 'DIFFERENT');
}

describe('renameStateTypes over generated states', () => {
  const opts = { skipDifferent: true };

  it('keeps every instance and every other byte, renames SAME types and the addresses that name them', () => {
    fc.assert(
      fc.property(stateText, (input) => {
        const { stateText: output, report } = renameStateTypes(input, opts);
        const before = JSON.parse(input);
        const after = JSON.parse(output);
        const changedAnything = output !== input;
        const expected = expectedRename(before);
        if (!changedAnything) expected.serial = before.serial;
        expect(after).toEqual(expected);

        const count = (doc: { resources: { instances: unknown[] }[] }) => doc.resources.reduce((n, r) => n + r.instances.length, 0);
        expect(count(after)).toBe(count(before));

        const was = textPieces(input);
        const now = textPieces(output);
        expect(now).toHaveLength(was.length);
        was.forEach((piece, i) => {
          if (piece === now[i]) return;
          if (!piece.startsWith('"')) return expect(was[i - 1]).toBe('"serial"');
          // A changed string is a resource type or an address naming one, renamed as the type map says.
          const value: string = JSON.parse(piece);
          const renamed = renameAddress(value) !== value ? renameAddress(value) : (sameReplacement('managed', value) ?? sameReplacement('data', value));
          expect(JSON.parse(now[i])).toBe(renamed);
        });

        for (const r of after.resources) expect(sameReplacement(r.mode, r.type)).toBeUndefined();
        for (const r of after.resources) for (const inst of r.instances) for (const dep of inst.dependencies ?? []) expect(renameAddress(dep)).toBe(dep);
        expect(report.alreadyMigrated).toBe(!changedAnything && report.refused.length === 0);
        if (!hasDifferent(input)) expect(report.refused).toEqual([]);
      }),
      { numRuns: propertyRuns(150) },
    );
  });

  it('gives the same bytes when run on its own output', () => {
    fc.assert(
      fc.property(stateText, (input) => {
        const once = renameStateTypes(input, opts).stateText;
        const twice = renameStateTypes(once, opts);
        expect(twice.stateText).toBe(once);
        expect(twice.report.counts).toEqual({ resources: 0, instances: 0, dependencies: 0, checkResults: 0 });
      }),
      { numRuns: propertyRuns(100) },
    );
  });
});
