import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, homePvcName, migrateStateByHand, pushTemplateVersion, startBuild } from './helpers';

type State = { resources: { type: string; name: string; instances: { attributes: { metadata?: { uid?: string }[] } }[] }[] };

describe('simulator: the lossyBuild fault, a build that succeeds but loses an object', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 2, buildLatencyMs: 5 });
  });
  afterEach(async () => sim.close());

  const stateOf = (id: string) => JSON.parse(sim.stateOf(id)) as State;
  const pvcEntry = (id: string) => stateOf(id).resources.find((r) => r.type === 'kubernetes_persistent_volume_claim' && r.name === 'home');

  test('forget: the build succeeds, its state has no entry for the PVC, the PVC stays in the cluster; once only', async () => {
    const [ws, other] = sim.workspaces();
    const uid = sim.cluster.pvc('coder', homePvcName(ws.id))!.uid;
    sim.setFaults({ lossyBuild: { how: 'forget', address: 'kubernetes_persistent_volume_claim.home', workspaceId: ws.id, times: 1 } });
    expect((await startBuild(sim, other.id, { transition: 'start' })).job.status).toBe('succeeded');
    expect(pvcEntry(other.id)).toBeDefined();
    expect((await startBuild(sim, ws.id, { transition: 'start' })).job.status).toBe('succeeded');
    expect(pvcEntry(ws.id)).toBeUndefined();
    expect(sim.cluster.pvc('coder', homePvcName(ws.id))!.uid).toBe(uid);
    expect(sim.cluster.pvcLosses()).toEqual([]);
    // The next build is honest again: it plans the PVC back in, and the API server refuses a second one.
    const next = await startBuild(sim, ws.id, { transition: 'start' });
    expect(next.job.status).toBe('failed');
    expect(next.job.error).toMatch(/persistentvolumeclaims "coder-.*-home" already exists/);
  });

  test('replace: the PVC is destroyed and created again; the state and the cluster hold the new uid; the loss is recorded', async () => {
    const [ws] = sim.workspaces();
    const uid = sim.cluster.pvc('coder', homePvcName(ws.id))!.uid;
    sim.setFaults({ lossyBuild: { how: 'replace', address: 'kubernetes_persistent_volume_claim.home', transition: 'start' } });
    const build = await startBuild(sim, ws.id, { transition: 'start' });
    expect(build.job.status).toBe('succeeded');
    const now = sim.cluster.pvc('coder', homePvcName(ws.id))!.uid;
    expect(now).not.toBe(uid);
    expect(pvcEntry(ws.id)!.instances[0].attributes.metadata![0].uid).toBe(now);
    expect(sim.cluster.pvcLosses()).toEqual([{ workspace: ws.id, namespace: 'coder', name: homePvcName(ws.id), oldUid: uid, newUid: now, buildId: build.id }]);
  });

  test('a build whose state does not hold the address is left alone and not counted: the fault waits for one that holds it', async () => {
    const [ws] = sim.workspaces();
    sim.setFaults({ lossyBuild: { how: 'forget', address: 'kubernetes_persistent_volume_claim_v1.home', workspaceId: ws.id, times: 1 } });
    const untouched = await startBuild(sim, ws.id, { transition: 'start' });
    expect(untouched.job.status).toBe('succeeded');
    expect(pvcEntry(ws.id)).toBeDefined();
    // The same workspace's state migrated by hand and built with a _v1 version: the first build that holds the address takes the fault.
    const v1 = (await pushTemplateVersion(sim, fixtureSource('template-v1-guard'))).id;
    const held = (await api(sim, 'GET', `/workspacebuilds/${untouched.id}/state`)).text;
    const lossy = await startBuild(sim, ws.id, { transition: 'stop', template_version_id: v1, state: Buffer.from(migrateStateByHand(held)).toString('base64') });
    expect(lossy.job.status).toBe('succeeded');
    const state = JSON.parse((await api(sim, 'GET', `/workspacebuilds/${lossy.id}/state`)).text) as { resources: { type: string }[] };
    expect(state.resources.map((r) => r.type)).not.toContain('kubernetes_persistent_volume_claim_v1');
  });
});
