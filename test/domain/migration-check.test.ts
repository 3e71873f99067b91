import { findPersistentLosses, leftoverDeprecated, restoreDifferences, summarizeStateMigration } from '../../src/domain/migration-check';
import type { StateResourceView } from '../../src/domain/state';

const pvc = (type: string, uid: string, id = 'coder/ws-home'): StateResourceView => ({
  mode: 'managed',
  type,
  name: 'home',
  instances: [{ attributes: { id, metadata: [{ uid, name: 'ws-home' }] } }],
});
const deployment = (type: string): StateResourceView => ({ mode: 'managed', type, name: 'main', instances: [{ index_key: 0, attributes: { id: 'coder/ws' } }] });

describe('summarizeStateMigration', () => {
  it('separates renameable, import-only and migrated states', () => {
    const s = summarizeStateMigration([
      pvc('kubernetes_persistent_volume_claim', 'u1'),
      deployment('kubernetes_deployment'),
      { mode: 'managed', type: 'kubernetes_ingress', name: 'web', instances: [{}] },
      { mode: 'data', type: 'kubernetes_secret', name: 's', instances: [{}] },
      { mode: 'managed', type: 'coder_agent', name: 'main', instances: [{}] },
    ]);
    expect(s.renameable).toEqual(['kubernetes_persistent_volume_claim.home', 'kubernetes_deployment.main[0]']);
    expect(s.needsImport).toEqual(['kubernetes_ingress.web']);
    expect(s.migrated).toBe(false);
    expect(summarizeStateMigration([pvc('kubernetes_persistent_volume_claim_v1', 'u1')]).migrated).toBe(true);
  });
});

describe('findPersistentLosses', () => {
  it('finds nothing when the renamed PVC keeps its uid', () => {
    expect(findPersistentLosses([pvc('kubernetes_persistent_volume_claim', 'u1')], [pvc('kubernetes_persistent_volume_claim_v1', 'u1')])).toEqual([]);
  });
  it('reports a PVC re-created with another uid', () => {
    const losses = findPersistentLosses([pvc('kubernetes_persistent_volume_claim', 'u1')], [pvc('kubernetes_persistent_volume_claim_v1', 'u2')]);
    expect(losses).toEqual([
      { address: 'kubernetes_persistent_volume_claim.home', problem: 'replaced', before: { id: 'coder/ws-home', uid: 'u1' }, after: { id: 'coder/ws-home', uid: 'u2' } },
    ]);
  });
  it('reports a PVC that is gone', () => {
    expect(findPersistentLosses([pvc('kubernetes_persistent_volume_claim', 'u1')], [deployment('kubernetes_deployment_v1')])[0]).toMatchObject({ problem: 'missing' });
  });
  it('ignores non-persistent kinds (a deployment is recreated on every start)', () => {
    expect(findPersistentLosses([deployment('kubernetes_deployment')], [])).toEqual([]);
  });
});

describe('leftoverDeprecated', () => {
  it('lists deprecated managed instances and nothing else', () => {
    expect(leftoverDeprecated([deployment('kubernetes_deployment'), pvc('kubernetes_persistent_volume_claim_v1', 'u')])).toEqual(['kubernetes_deployment.main[0]']);
  });
});

describe('restoreDifferences', () => {
  const backup = [pvc('kubernetes_persistent_volume_claim', 'u1'), deployment('kubernetes_deployment')];
  it('finds nothing when the restored state holds the backup\'s PVC at its address with its uid and id', () => {
    expect(restoreDifferences(backup, [pvc('kubernetes_persistent_volume_claim', 'u1'), deployment('kubernetes_deployment')])).toEqual([]);
  });
  it('calls a _v1 entry under the prior version missing: the deprecated address is what that version keeps', () => {
    expect(restoreDifferences(backup, [pvc('kubernetes_persistent_volume_claim_v1', 'u1')])).toEqual(['kubernetes_persistent_volume_claim.home is missing']);
  });
  it('names another uid, and another id under the same uid', () => {
    expect(restoreDifferences(backup, [pvc('kubernetes_persistent_volume_claim', 'u2')])).toEqual(['kubernetes_persistent_volume_claim.home has uid u2, not u1']);
    expect(restoreDifferences(backup, [pvc('kubernetes_persistent_volume_claim', 'u1', 'coder/other')])).toEqual(['kubernetes_persistent_volume_claim.home has id coder/other, not coder/ws-home']);
  });
  it('an empty restored state misses every persistent object, and nothing else is asked for', () => {
    expect(restoreDifferences(backup, [])).toEqual(['kubernetes_persistent_volume_claim.home is missing']);
    expect(restoreDifferences([deployment('kubernetes_deployment')], [])).toEqual([]);
  });
});
