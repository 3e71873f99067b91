import { findPersistentLosses, leftoverDeprecated, persistentIdentities, restoreDifferences, summarizeStateMigration } from '../../src/domain/migration-check';
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
    // Either kind left alone is enough to be unmigrated.
    expect(summarizeStateMigration([pvc('kubernetes_persistent_volume_claim', 'u1')]).migrated).toBe(false);
    expect(summarizeStateMigration([{ mode: 'managed', type: 'kubernetes_ingress', name: 'web', instances: [{}] }]).migrated).toBe(false);
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
  it('names what the lost volume was: its id and uid', () => {
    expect(findPersistentLosses([pvc('kubernetes_persistent_volume_claim', 'u1')], [])).toEqual([
      { address: 'kubernetes_persistent_volume_claim.home', problem: 'missing', before: { id: 'coder/ws-home', uid: 'u1' } },
    ]);
  });
  it('calls a volume with the same uid but another id replaced', () => {
    expect(findPersistentLosses([pvc('kubernetes_persistent_volume_claim', 'u1')], [pvc('kubernetes_persistent_volume_claim_v1', 'u1', 'coder/other')])).toEqual([
      { address: 'kubernetes_persistent_volume_claim.home', problem: 'replaced', before: { id: 'coder/ws-home', uid: 'u1' }, after: { id: 'coder/other', uid: 'u1' } },
    ]);
  });
  it('compares by id alone when the state records no metadata (or metadata as one object, not a list)', () => {
    const bare = (id: string, attributes: Record<string, unknown> = {}): StateResourceView => ({
      mode: 'managed',
      type: 'kubernetes_persistent_volume_claim',
      name: 'home',
      instances: [{ attributes: { id, ...attributes } }],
    });
    expect(findPersistentLosses([bare('coder/ws-home')], [bare('coder/ws-home')])).toEqual([]);
    expect(findPersistentLosses([bare('coder/ws-home')], [bare('coder/new')])).toEqual([
      { address: 'kubernetes_persistent_volume_claim.home', problem: 'replaced', before: { id: 'coder/ws-home', uid: undefined }, after: { id: 'coder/new', uid: undefined } },
    ]);
    const asObject = bare('coder/ws-home', { metadata: { uid: 'u1' } });
    expect(findPersistentLosses([asObject], [bare('coder/ws-home', { metadata: { uid: 'u2' } })])[0]).toMatchObject({ problem: 'replaced', before: { uid: 'u1' }, after: { uid: 'u2' } });
    expect(findPersistentLosses([bare('coder/ws-home', { metadata: [null] })], [bare('coder/ws-home', { metadata: 'x' })])).toEqual([]);
  });
  it('never takes one persistent object for another: a PVC and a PV of the same name, or two PVCs, each answer for themselves', () => {
    const pv = (type: string, uid: string): StateResourceView => ({ ...pvc(type, uid, 'ws-home-pv'), name: 'home' });
    // The PV keeps its uid; the PVC of the same name is gone, not "replaced" by the PV.
    expect(findPersistentLosses([pvc('kubernetes_persistent_volume_claim', 'u1'), pv('kubernetes_persistent_volume', 'p1')], [pv('kubernetes_persistent_volume_v1', 'p1')])).toEqual([
      { address: 'kubernetes_persistent_volume_claim.home', problem: 'missing', before: { id: 'coder/ws-home', uid: 'u1' } },
    ]);
    const data = { ...pvc('kubernetes_persistent_volume_claim', 'd1', 'coder/ws-data'), name: 'data' };
    expect(findPersistentLosses([pvc('kubernetes_persistent_volume_claim', 'u1'), data], [pvc('kubernetes_persistent_volume_claim_v1', 'u1')])).toEqual([
      { address: 'kubernetes_persistent_volume_claim.data', problem: 'missing', before: { id: 'coder/ws-data', uid: 'd1' } },
    ]);
  });
  it('reads an entry Terraform wrote without attributes as an object with no id or uid, and finds it gone when the build drops it', () => {
    const empty = (type: string): StateResourceView => ({ mode: 'managed', type, name: 'home', instances: [{}] });
    expect(persistentIdentities([empty('kubernetes_persistent_volume_claim')])).toEqual([
      { key: 'kubernetes_persistent_volume_claim_v1.home', address: 'kubernetes_persistent_volume_claim.home', id: undefined, uid: undefined },
    ]);
    expect(findPersistentLosses([empty('kubernetes_persistent_volume_claim')], [empty('kubernetes_persistent_volume_claim_v1')])).toEqual([]);
    expect(findPersistentLosses([empty('kubernetes_persistent_volume_claim')], [])).toEqual([
      { address: 'kubernetes_persistent_volume_claim.home', problem: 'missing', before: { id: undefined, uid: undefined } },
    ]);
  });
  it('ignores data sources and deposed instances: neither is an object the build keeps', () => {
    const data: StateResourceView = { ...pvc('kubernetes_persistent_volume_claim', 'u1'), mode: 'data' };
    expect(findPersistentLosses([data], [])).toEqual([]);
    const deposed: StateResourceView = { ...pvc('kubernetes_persistent_volume_claim', 'u1'), instances: [{ deposed: 'abcd1234', attributes: { id: 'coder/old', metadata: [{ uid: 'u0' }] } }] };
    expect(findPersistentLosses([deposed], [])).toEqual([]);
  });
});

describe('leftoverDeprecated', () => {
  it('lists deprecated managed instances and nothing else', () => {
    expect(leftoverDeprecated([deployment('kubernetes_deployment'), pvc('kubernetes_persistent_volume_claim_v1', 'u')])).toEqual(['kubernetes_deployment.main[0]']);
    // Neither a type outside the map nor a data source of a deprecated type is a leftover.
    expect(leftoverDeprecated([{ mode: 'managed', type: 'coder_agent', name: 'main', instances: [{}] }, { mode: 'data', type: 'kubernetes_secret', name: 's', instances: [{}] }])).toEqual([]);
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
  it('says (none) where the restored entry has no uid or no id', () => {
    expect(restoreDifferences(backup, [{ ...pvc('kubernetes_persistent_volume_claim', 'u1'), instances: [{ attributes: { id: 'coder/ws-home' } }] }])).toEqual(['kubernetes_persistent_volume_claim.home has uid (none), not u1']);
    expect(restoreDifferences(backup, [{ ...pvc('kubernetes_persistent_volume_claim', 'u1'), instances: [{ attributes: { metadata: [{ uid: 'u1' }] } }] }])).toEqual(['kubernetes_persistent_volume_claim.home has id (none), not coder/ws-home']);
  });
  it('an empty restored state misses every persistent object, and nothing else is asked for', () => {
    expect(restoreDifferences(backup, [])).toEqual(['kubernetes_persistent_volume_claim.home is missing']);
    expect(restoreDifferences([deployment('kubernetes_deployment')], [])).toEqual([]);
  });
});
