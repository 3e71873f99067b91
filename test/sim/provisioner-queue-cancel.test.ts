import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, waitForBuild, type BuildJson } from './helpers';

/**
 * A pending build canceled while it waits in the provisioner queue (coderd/workspacebuilds.go
 * patchCancelWorkspaceBuild on a pending job: canceled at once, never acquired) leaves the queue: the
 * daemon takes the next job, and no daemon is ever held by a job that will not run.
 */
describe('simulator: a queued build canceled at the head of the queue', () => {
  let sim: CoderSimulator;
  afterEach(async () => {
    await sim?.close();
  });

  test('leaves the queue; the next build runs on the daemon, which is idle afterwards', async () => {
    sim = await startSimulator({ workspaces: 2, seed: 7, buildLatencyMs: 5, provisioners: 1 });
    const [daemon] = sim.provisionerDaemons();
    sim.setDaemonOffline(daemon!.name);
    const [a, b] = sim.workspaces();
    const first = await api<BuildJson>(sim, 'POST', `/workspaces/${a!.id}/builds`, { json: { transition: 'stop' } });
    const second = await api<BuildJson>(sim, 'POST', `/workspaces/${b!.id}/builds`, { json: { transition: 'stop' } });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect((await api(sim, 'PATCH', `/workspacebuilds/${first.body.id}/cancel`)).status).toBe(200);
    sim.setDaemonOffline(daemon!.name, false);

    const done = await waitForBuild(sim, second.body.id, 5_000);
    expect(done.build.job.status).toBe('succeeded');
    expect((await waitForBuild(sim, first.body.id)).build.job.status).toBe('canceled');
    expect(sim.provisionerDaemons()).toEqual([expect.objectContaining({ name: daemon!.name, status: 'idle' })]);
  });
});
