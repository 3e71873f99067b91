import { downgradeHazards } from '../../src/domain/downgrade-guard';
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
});
