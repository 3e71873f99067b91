import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, waitForBuild, type BuildJson } from './helpers';

/** PATCH /workspacebuilds/{id}/cancel as coderd/workspacebuilds.go patchCancelWorkspaceBuild answers it. */
describe('simulator: canceling a workspace build', () => {
  let sim: CoderSimulator;
  afterEach(async () => {
    await sim?.close();
  });

  test('a member may not cancel unless the template allows it (403, Owner role named); an Owner may; the template setting opens it to members', async () => {
    sim = await startSimulator({ workspaces: 1, seed: 5, buildLatencyMs: 300 });
    const ws = sim.workspaces()[0];
    const owner = sim.tokenOf(ws.owner);
    const first = (await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { token: owner, json: { transition: 'stop' } })).body;
    const refused = await api<{ message: string }>(sim, 'PATCH', `/workspacebuilds/${first.id}/cancel`, { token: owner });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('User is not allowed to cancel workspace builds. Owner role is required.');
    expect((await api(sim, 'PATCH', `/workspacebuilds/${first.id}/cancel`)).status).toBe(200); // the admin token is an Owner
    expect((await waitForBuild(sim, first.id)).build.job.status).toBe('canceled');

    expect((await api(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { allow_user_cancel_workspace_jobs: true } })).status).toBe(200);
    const second = (await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { token: owner, json: { transition: 'stop' } })).body;
    expect((await api(sim, 'PATCH', `/workspacebuilds/${second.id}/cancel`, { token: owner })).status).toBe(200);
    expect((await waitForBuild(sim, second.id)).build.job.status).toBe('canceled');
  });

  test('a pending job ends canceled at once and never runs: the build keeps the state it was created with; a second cancel or a completed job is a 400', async () => {
    sim = await startSimulator({ workspaces: 1, seed: 6, buildLatencyMs: 300, provisioners: 1 });
    for (const d of sim.provisionerDaemons()) sim.setDaemonOffline(d.name);
    const ws = sim.workspaces()[0];
    const before = sim.stateOf(ws.id);
    const build = (await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'stop' } })).body;
    expect(build.job.status).toBe('pending');
    expect((await api(sim, 'PATCH', `/workspacebuilds/${build.id}/cancel`)).status).toBe(200);
    const now = (await api<BuildJson & { job: { canceled_at?: string } }>(sim, 'GET', `/workspacebuilds/${build.id}`)).body;
    expect(now.job.status).toBe('canceled');
    expect(now.job.canceled_at).toBeDefined();
    expect(now.job.completed_at).toBeDefined();
    for (const d of sim.provisionerDaemons()) sim.setDaemonOffline(d.name, false);
    expect(sim.stateOf(ws.id)).toBe(before);
    const again = await api<{ message: string }>(sim, 'PATCH', `/workspacebuilds/${build.id}/cancel`);
    expect([again.status, again.body.message]).toEqual([400, 'Job has already completed!']);
    // The daemon never took it: the next build runs at once.
    const next = (await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'stop' } })).body;
    expect((await waitForBuild(sim, next.id)).build.job.status).toBe('succeeded');
  });

  test('a running job goes on to the end of its provisioner run, canceling meanwhile, then ends canceled with the state it wrote', async () => {
    sim = await startSimulator({ workspaces: 1, seed: 7, buildLatencyMs: 400 });
    const ws = sim.workspaces()[0];
    const build = (await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'stop' } })).body;
    const deadline = Date.now() + 5_000;
    while ((await api<BuildJson>(sim, 'GET', `/workspacebuilds/${build.id}`)).body.job.status !== 'running') {
      if (Date.now() > deadline) throw new Error('the build never ran');
      await new Promise((r) => setTimeout(r, 10));
    }
    expect((await api(sim, 'PATCH', `/workspacebuilds/${build.id}/cancel`)).status).toBe(200);
    expect((await api<BuildJson>(sim, 'GET', `/workspacebuilds/${build.id}`)).body.job.status).toBe('canceling');
    const twice = await api<{ message: string }>(sim, 'PATCH', `/workspacebuilds/${build.id}/cancel`);
    expect([twice.status, twice.body.message]).toEqual([400, 'Job has already been marked as canceled!']);
    const { build: done, seen } = await waitForBuild(sim, build.id);
    expect(done.job.status).toBe('canceled');
    expect(seen).toContain('canceling');
    // The stop's apply ran: the deployment is gone from the state it wrote, the PVC kept.
    const types = (JSON.parse(sim.stateOf(ws.id)) as { resources: { type: string; instances: unknown[] }[] }).resources.filter((r) => r.instances.length > 0).map((r) => r.type);
    expect(types).toContain('kubernetes_persistent_volume_claim');
    expect(types).not.toContain('kubernetes_deployment');
  });

  test("a running job canceled whose provisioner then fails it (an interrupted apply: FailJob with the error) ends failed, not canceled: Coder's job_status reads the error first", async () => {
    sim = await startSimulator({ workspaces: 1, seed: 8, buildLatencyMs: 400 });
    const ws = sim.workspaces()[0];
    sim.setFaults({ failBuilds: { workspaceId: ws.id, transition: 'stop', times: 1, message: 'Error: execution halted' } });
    const build = (await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'stop' } })).body;
    const deadline = Date.now() + 5_000;
    while ((await api<BuildJson>(sim, 'GET', `/workspacebuilds/${build.id}`)).body.job.status !== 'running') {
      if (Date.now() > deadline) throw new Error('the build never ran');
      await new Promise((r) => setTimeout(r, 10));
    }
    expect((await api(sim, 'PATCH', `/workspacebuilds/${build.id}/cancel`)).status).toBe(200);
    const { build: done, seen } = await waitForBuild(sim, build.id);
    expect(seen).toContain('canceling');
    expect(done.job).toMatchObject({ status: 'failed', error: 'Error: execution halted' });
    expect((done.job as { canceled_at?: string }).canceled_at).toBeDefined();
  });
});
