import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, homePvcName, waitForBuild, type BuildJson } from './helpers';

/**
 * How a build's end shows on the workspace, held to coderd: a pending build canceled never runs
 * (coderd/workspacebuilds.go patchCancelWorkspaceBuild: a job no daemon acquired is completed canceled
 * at once), and a workspace is marked deleted only when its delete build succeeds
 * (coderd/provisionerdserver/provisionerdserver.go completeWorkspaceBuildJob, UpdateWorkspaceDeletedByID
 * on the success path only).
 */
describe('simulator: what a build leaves when it does not succeed', () => {
  let sim: CoderSimulator;
  afterEach(async () => sim?.close());

  test('a build canceled while pending never runs: the job stays canceled and the cluster untouched', async () => {
    sim = await startSimulator({ workspaces: 1, seed: 61, buildLatencyMs: 300 });
    const ws = sim.workspaces()[0]!;
    const before = sim.cluster.objects().map((o) => `${o.kind}/${o.name}/${o.uid}`).sort();
    const posted = await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'stop' } });
    expect(posted.body.job.status).toBe('pending');
    expect((await api(sim, 'PATCH', `/workspacebuilds/${posted.body.id}/cancel`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 900));
    expect((await waitForBuild(sim, posted.body.id)).build.job.status).toBe('canceled');
    expect(sim.cluster.objects().map((o) => `${o.kind}/${o.name}/${o.uid}`).sort()).toEqual(before);
  });

  test('a failed delete leaves the workspace there: GET answers it, the list holds it, its claim is kept', async () => {
    sim = await startSimulator({ workspaces: 1, seed: 62, buildLatencyMs: 5 });
    const ws = sim.workspaces()[0]!;
    sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'delete', times: 1 } });
    const posted = await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'delete' } });
    expect((await waitForBuild(sim, posted.body.id)).build.job.status).toBe('failed');
    expect((await api(sim, 'GET', `/workspaces/${ws.id}`)).status).toBe(200);
    expect((await api<{ workspaces: { id: string }[] }>(sim, 'GET', '/workspaces')).body.workspaces.map((w) => w.id)).toContain(ws.id);
    expect(sim.cluster.pvc('coder', homePvcName(ws.id))).toBeDefined();
  });
});
