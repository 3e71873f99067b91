import { startSimulator, type CoderSimulator } from '../../src/sim';
import { homePvcName, startBuild } from './helpers';

type State = { lineage: string; serial: number; resources: { type: string; name: string }[] };

describe('simulator: the wrongStoredState fault, a build whose state Coder keeps is not what it wrote', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 2, buildLatencyMs: 5 });
  });
  afterEach(async () => sim.close());

  test('previous: the build succeeds, Coder keeps the state of the build before it; the cluster is untouched; once only', async () => {
    const [ws, other] = sim.workspaces();
    const uid = sim.cluster.pvc('coder', homePvcName(ws.id))!.uid;
    const before = sim.stateOf(ws.id);
    const deployed = () => sim.cluster.objects().some((o) => o.kind === 'Deployment' && o.name === `coder-${ws.id}`);
    expect(deployed()).toBe(true);
    sim.setFaults({ wrongStoredState: { how: 'previous', workspaceId: ws.id, transition: 'stop', times: 1 } });
    expect((await startBuild(sim, other.id, { transition: 'stop' })).job.status).toBe('succeeded');
    expect(sim.stateOf(other.id)).not.toContain('kubernetes_deployment');
    expect((await startBuild(sim, ws.id, { transition: 'stop' })).job.status).toBe('succeeded');
    // The stop destroyed the deployment, but Coder still holds the running workspace's state.
    expect(sim.stateOf(ws.id)).toBe(before);
    expect(deployed()).toBe(false);
    expect(sim.cluster.pvc('coder', homePvcName(ws.id))!.uid).toBe(uid);
    const honest = await startBuild(sim, ws.id, { transition: 'stop' });
    expect(honest.job.status).toBe('succeeded');
    expect(sim.stateOf(ws.id)).not.toBe(before);
  });

  test('empty: Coder keeps the written state without resources (lineage and serial as written); the PVC stays', async () => {
    const [ws] = sim.workspaces();
    const uid = sim.cluster.pvc('coder', homePvcName(ws.id))!.uid;
    const lineage = (JSON.parse(sim.stateOf(ws.id)) as State).lineage;
    sim.setFaults({ wrongStoredState: { how: 'empty', transition: 'start' } });
    expect((await startBuild(sim, ws.id, { transition: 'start' })).job.status).toBe('succeeded');
    const kept = JSON.parse(sim.stateOf(ws.id)) as State;
    expect(kept.resources).toEqual([]);
    expect(kept.lineage).toBe(lineage);
    expect(sim.cluster.pvc('coder', homePvcName(ws.id))!.uid).toBe(uid);
    expect(sim.cluster.pvcLosses()).toEqual([]);
  });
});
