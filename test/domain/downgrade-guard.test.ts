import { downgradeHazards, downgradeHazardsAgainst, holdsMigratedEntries, oldTypeHazardsAgainst } from '../../src/domain/downgrade-guard';
import { TYPE_MAP } from '../../src/domain/type-map';
import { rewriteTemplate } from '../../src/domain/template-rewrite';
import { K8S_TEMPLATE_MAIN_TF } from '../../src/sim/template-source';

const old = [{ path: 'main.tf', content: K8S_TEMPLATE_MAIN_TF }];
const migrated = [
  { mode: 'managed' as const, type: 'kubernetes_persistent_volume_claim_v1', name: 'home' },
  { mode: 'managed' as const, type: 'kubernetes_deployment_v1', name: 'main' },
  { mode: 'managed' as const, type: 'coder_agent', name: 'main' },
];

describe('the downgrade rule', () => {
  test('a migrated state built with a pre-migration version: every _v1 entry the old version declares under its old type', () => {
    expect(downgradeHazards(migrated, old)).toEqual([
      'kubernetes_persistent_volume_claim_v1.home is migrated, but this version declares the old kubernetes_persistent_volume_claim.home: the build would destroy it and re-create it empty',
      'kubernetes_deployment_v1.main is migrated, but this version declares the old kubernetes_deployment.main: the build would destroy it and re-create it empty',
    ]);
  });

  test('the migrated version, the zero-touch version and an unmigrated state are safe', () => {
    expect(downgradeHazards(migrated, rewriteTemplate(old).files)).toEqual([]);
    expect(downgradeHazards(migrated, rewriteTemplate(old, { zeroTouch: true }).files)).toEqual([]);
    expect(downgradeHazards([{ mode: 'managed', type: 'kubernetes_persistent_volume_claim', name: 'home' }], old)).toEqual([]);
    // Entries inside modules are not judged by root declarations.
    expect(downgradeHazards([{ module: 'module.x', mode: 'managed', type: 'kubernetes_persistent_volume_claim_v1', name: 'home' }], old)).toEqual([]);
  });

  test('only managed root declarations count: a data source, a module, both types or neither make no hazard', () => {
    const pvc1 = [{ mode: 'managed' as const, type: 'kubernetes_persistent_volume_claim_v1', name: 'home' }];
    const tf = (content: string, more: { path: string; content: string }[] = []) => [{ path: 'main.tf', content }, ...more];
    const oldPvc = 'resource "kubernetes_persistent_volume_claim" "home" {\n}\n';
    const newPvc = 'resource "kubernetes_persistent_volume_claim_v1" "home" {\n}\n';
    expect(downgradeHazards(pvc1, tf(oldPvc))).toHaveLength(1);
    expect(downgradeHazards(pvc1, tf('data "kubernetes_persistent_volume_claim" "home" {\n}\n'))).toEqual([]);
    expect(downgradeHazards(pvc1, tf('module "x" {\n  source = "./modules/x"\n}\n', [{ path: 'modules/x/main.tf', content: oldPvc }]))).toEqual([]);
    expect(downgradeHazards(pvc1, tf(`${oldPvc}${newPvc}`))).toEqual([]);
    expect(downgradeHazards(pvc1, tf('resource "kubernetes_service_v1" "web" {\n}\n'))).toEqual([]);
    // A data source in the state is re-read, never destroyed.
    expect(downgradeHazards([{ mode: 'data' as const, type: 'kubernetes_persistent_volume_claim_v1', name: 'home' }], tf(oldPvc))).toEqual([]);
  });
  test('a state holds migrated entries exactly when some version could be a downgrade for it (the builds read a version only then)', () => {
    type Entry = { module?: string; mode: 'managed' | 'data'; type: string; name: string };
    const entries: Entry[] = [
      ...TYPE_MAP.flatMap((m) => [
        { mode: m.mode, type: m.replacement, name: 'x' },
        { mode: m.mode, type: m.deprecated, name: 'x' },
        { module: 'module.m', mode: m.mode, type: m.replacement, name: 'x' },
      ]),
      { mode: 'managed', type: 'coder_agent', name: 'x' },
      { mode: 'managed', type: 'kubernetes_manifest', name: 'x' },
      { mode: 'managed', type: 'kubernetes_custom_v1', name: 'x' },
    ];
    // The most dangerous version for any state: every deprecated type declared under the entry's name.
    const everyOldType = new Set(TYPE_MAP.map((m) => `${m.deprecated}.x`));
    for (const e of entries) expect([e, holdsMigratedEntries([e])]).toEqual([e, downgradeHazardsAgainst([e], everyOldType).length > 0]);
    expect(holdsMigratedEntries([{ mode: 'managed', type: 'kubernetes_pod_security_policy_v1beta1', name: 'x' }])).toBe(true);
    expect(holdsMigratedEntries([])).toBe(false);
    expect(holdsMigratedEntries([entries[1], entries[0]])).toBe(true);
  });
});

describe('the other direction: an old-type state on a version that declares only its _v1 twin', () => {
  it('names each root old-type entry whose twin alone is declared, and nothing else', () => {
    const state = [
      { mode: 'managed' as const, type: 'kubernetes_persistent_volume_claim', name: 'home' },
      { mode: 'managed' as const, type: 'kubernetes_deployment', name: 'main' },
      { mode: 'managed' as const, type: 'kubernetes_secret', name: 'kept' },
      { mode: 'managed' as const, type: 'kubernetes_service', name: 'sub', module: 'module.m' },
      { mode: 'data' as const, type: 'kubernetes_config_map', name: 'cfg' },
    ];
    const declared = new Set(['kubernetes_persistent_volume_claim_v1.home', 'kubernetes_deployment.main', 'kubernetes_deployment_v1.main', 'kubernetes_secret.kept', 'kubernetes_service_v1.sub', 'kubernetes_config_map_v1.cfg']);
    expect(oldTypeHazardsAgainst(state, declared)).toEqual([
      'kubernetes_persistent_volume_claim.home has the old type, but this version declares only kubernetes_persistent_volume_claim_v1.home: the build would drop it from the state and create kubernetes_persistent_volume_claim_v1.home anew',
    ]);
    expect(oldTypeHazardsAgainst(migrated, declared)).toEqual([]);
  });
});
