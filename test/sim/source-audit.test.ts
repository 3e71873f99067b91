import { K8S_TEMPLATE_MAIN_TF, startSimulator, type CoderSimulator } from '../../src/sim';
import { api, latestBuildId, pushTemplateVersion, startBuild, waitForBuild, type BuildJson } from './helpers';

/**
 * Behaviours found in the audit of the simulator against Coder's Go source (docs/sim-audit.md), each as
 * coder/coder does it: the file and function are named in the test and in the simulator's comment.
 */
describe('simulator: what the audit against Coder\'s source changed', () => {
  let sim: CoderSimulator;
  afterEach(async () => {
    await sim?.close();
  });

  async function whenRunning(buildId: string): Promise<void> {
    const deadline = Date.now() + 5_000;
    while ((await api<BuildJson>(sim, 'GET', `/workspacebuilds/${buildId}`)).body.job.status !== 'running') {
      if (Date.now() > deadline) throw new Error('the build never ran');
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  describe('provisionerdserver.go CompleteJob: a job canceled while running that completes is a completed job', () => {
    test('a delete canceled while it runs whose apply finishes anyway ends `canceled` and the workspace IS deleted (410), home PVC gone', async () => {
      sim = await startSimulator({ workspaces: 1, seed: 301, buildLatencyMs: 300 });
      const ws = sim.workspaces()[0]!;
      const del = (await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'delete' } })).body;
      await whenRunning(del.id);
      expect((await api(sim, 'PATCH', `/workspacebuilds/${del.id}/cancel`)).status).toBe(200);
      expect((await waitForBuild(sim, del.id)).build.job.status).toBe('canceled');
      // UpdateWorkspaceDeletedByID runs for any delete CompleteJob completes: canceled_at is not looked at.
      expect((await api(sim, 'GET', `/workspaces/${ws.id}`)).status).toBe(410);
      expect(sim.workspaces().map((w) => w.id)).not.toContain(ws.id);
    });

    test('a delete canceled while still pending never ran: canceled, and the workspace is not deleted', async () => {
      sim = await startSimulator({ workspaces: 1, seed: 302, buildLatencyMs: 300, provisioners: 1 });
      for (const d of sim.provisionerDaemons()) sim.setDaemonOffline(d.name);
      const ws = sim.workspaces()[0]!;
      const del = (await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'delete' } })).body;
      expect((await api(sim, 'PATCH', `/workspacebuilds/${del.id}/cancel`)).status).toBe(200);
      expect((await api<BuildJson>(sim, 'GET', `/workspacebuilds/${del.id}`)).body.job.status).toBe('canceled');
      expect((await api(sim, 'GET', `/workspaces/${ws.id}`)).status).toBe(200);
    });

    test('a start canceled while it runs that completes gets its deadline from the ttl, and autostop then stops it', async () => {
      sim = await startSimulator({ workspaces: 1, seed: 303, buildLatencyMs: 300 });
      const ws = sim.workspaces()[0]!;
      expect((await api(sim, 'PUT', `/workspaces/${ws.id}/ttl`, { json: { ttl_ms: 3_600_000 } })).status).toBe(204);
      await startBuild(sim, ws.id, { transition: 'stop' });
      const start = (await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'start' } })).body;
      await whenRunning(start.id);
      expect((await api(sim, 'PATCH', `/workspacebuilds/${start.id}/cancel`)).status).toBe(200);
      const done = (await waitForBuild(sim, start.id)).build as BuildJson & { deadline?: string | null };
      expect(done.job.status).toBe('canceled');
      expect(done.deadline).toBeTruthy();
      expect(sim.lifecycleTick(new Date(Date.parse(done.deadline!) + 60_000)).transitions).toEqual({ [ws.id]: 'stop' });
    });
  });

  describe('workspacebuilds.go patchCancelWorkspaceBuild: ?expect_status', () => {
    test('a value other than running or pending is a 400; a job in another status than expected is a 412 and is not canceled', async () => {
      sim = await startSimulator({ workspaces: 1, seed: 304, buildLatencyMs: 300 });
      const ws = sim.workspaces()[0]!;
      const build = (await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { json: { transition: 'stop' } })).body;
      await whenRunning(build.id);
      const bad = await api<{ message: string }>(sim, 'PATCH', `/workspacebuilds/${build.id}/cancel?expect_status=canceling`);
      expect([bad.status, bad.body.message]).toEqual([400, 'Invalid expect_status "canceling". Only \'running\' or \'pending\' are allowed.']);
      const mismatch = await api<{ message: string }>(sim, 'PATCH', `/workspacebuilds/${build.id}/cancel?expect_status=pending`);
      expect([mismatch.status, mismatch.body.message]).toEqual([412, 'Job is not in the expected state.']);
      expect((await api<BuildJson>(sim, 'GET', `/workspacebuilds/${build.id}`)).body.job.status).toBe('running');
      expect((await api(sim, 'PATCH', `/workspacebuilds/${build.id}/cancel?expect_status=running`)).status).toBe(200);
      expect((await waitForBuild(sim, build.id)).build.job.status).toBe('canceled');
    });

    test('expect_status=pending lets a member cancel a pending job the template does not let members cancel; running does not', async () => {
      sim = await startSimulator({ workspaces: 1, seed: 305, buildLatencyMs: 300, provisioners: 1 });
      for (const d of sim.provisionerDaemons()) sim.setDaemonOffline(d.name);
      const ws = sim.workspaces()[0]!;
      const owner = sim.tokenOf(ws.owner);
      const build = (await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { token: owner, json: { transition: 'stop' } })).body;
      expect((await api(sim, 'PATCH', `/workspacebuilds/${build.id}/cancel`, { token: owner })).status).toBe(403);
      expect((await api(sim, 'PATCH', `/workspacebuilds/${build.id}/cancel?expect_status=running`, { token: owner })).status).toBe(403);
      expect((await api(sim, 'PATCH', `/workspacebuilds/${build.id}/cancel?expect_status=pending`, { token: owner })).status).toBe(200);
      expect((await api<BuildJson>(sim, 'GET', `/workspacebuilds/${build.id}`)).body.job.status).toBe('canceled');
    });
  });

  describe('codersdk.CreateWorkspaceBuildRequest reason, workspacebuilds.go postWorkspaceBuildsInternal', () => {
    test('a reason outside the fixed list is a 400 and nothing is built; a valid one is kept on a start or stop, ignored on a delete', async () => {
      sim = await startSimulator({ workspaces: 2, seed: 306, buildLatencyMs: 5 });
      const [ws, other] = sim.workspaces();
      const before = await latestBuildId(sim, ws!.id);
      const refused = await api<{ message: string; validations?: { field: string }[] }>(sim, 'POST', `/workspaces/${ws!.id}/builds`, { json: { transition: 'stop', reason: 'wsmigrate' } });
      expect(refused.status).toBe(400);
      expect(refused.body.validations?.[0]?.field).toBe('reason');
      expect(await latestBuildId(sim, ws!.id)).toBe(before);
      const stop = await startBuild(sim, ws!.id, { transition: 'stop', reason: 'cli' });
      expect((stop as BuildJson & { reason: string }).reason).toBe('cli');
      const del = await startBuild(sim, other!.id, { transition: 'delete', reason: 'cli' });
      expect((del as BuildJson & { reason: string }).reason).toBe('initiator');
    });
  });

  describe('Premium require_active_version is dbauthz InsertWorkspaceBuild\'s: after wsbuilder.go buildTx\'s own checks', () => {
    test("a member's start on an old version while a build is active is the 409, not the 403", async () => {
      sim = await startSimulator({ workspaces: 1, seed: 307, buildLatencyMs: 300, licence: 'premium' });
      const ws = sim.workspaces()[0]!;
      const token = sim.tokenOf(ws.owner);
      const tpl = (await api<Record<string, unknown>>(sim, 'GET', `/templates/${sim.template.id}`)).body;
      expect((await api(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { ...tpl, require_active_version: true } })).status).toBe(200);
      const newer = (await pushTemplateVersion(sim, K8S_TEMPLATE_MAIN_TF, { name: 'newer' })).id;
      expect((await api(sim, 'PATCH', `/templates/${sim.template.id}/versions`, { json: { id: newer } })).status).toBe(200);
      const stop = (await api<BuildJson>(sim, 'POST', `/workspaces/${ws.id}/builds`, { token, json: { transition: 'stop' } })).body;
      const busy = await api(sim, 'POST', `/workspaces/${ws.id}/builds`, { token, json: { transition: 'start' } });
      expect(busy.status).toBe(409);
      await waitForBuild(sim, stop.id);
      expect((await api(sim, 'POST', `/workspaces/${ws.id}/builds`, { token, json: { transition: 'start' } })).status).toBe(403);
    });
  });

  describe('coderd/schedule/template.go agplTemplateScheduleStore: without Premium the executor disregards the enterprise schedule settings', () => {
    const DAY = 24 * 3_600_000;

    test('AGPL: a PATCH of failure_ttl, time_til_dormant(_autodelete) and allow_user_autostart answers 200 and changes none of them', async () => {
      sim = await startSimulator({ workspaces: 1, seed: 308, buildLatencyMs: 5, licence: 'agpl' });
      const tpl = (await api<Record<string, unknown>>(sim, 'GET', `/templates/${sim.template.id}`)).body;
      const change = { failure_ttl_ms: DAY, time_til_dormant_ms: DAY, time_til_dormant_autodelete_ms: DAY, allow_user_autostart: false, default_ttl_ms: 3_600_000 };
      expect((await api(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { ...tpl, ...change } })).status).toBe(200);
      const after = (await api<Record<string, unknown>>(sim, 'GET', `/templates/${sim.template.id}`)).body;
      expect(after).toMatchObject({ failure_ttl_ms: 0, time_til_dormant_ms: 0, time_til_dormant_autodelete_ms: 0, allow_user_autostart: true, default_ttl_ms: 3_600_000 });
    });

    test('dormancy settings stored while a licence was valid: no dormancy, no auto-delete once it has expired; with Premium both fire', async () => {
      sim = await startSimulator({ workspaces: 1, seed: 309, buildLatencyMs: 5, licence: 'premium', dormancy: { timeTilDormantMs: DAY, timeTilDormantAutodeleteMs: DAY } });
      const ws = sim.workspaces()[0]!;
      sim.setLicence('expired');
      expect(sim.lifecycleTick(new Date(Date.now() + 30 * DAY)).transitions).toEqual({});
      expect((await api<{ dormant_at: string | null }>(sim, 'GET', `/workspaces/${ws.id}`)).body.dormant_at).toBeNull();
      sim.setLicence('premium');
      expect(sim.lifecycleTick(new Date(Date.now() + 30 * DAY)).transitions).toEqual({ [ws.id]: 'stop' });
    });

    test('allow_user_autostart false stored while a licence was valid: without Premium the schedule still autostarts the workspace', async () => {
      sim = await startSimulator({ workspaces: 1, seed: 310, buildLatencyMs: 5, licence: 'premium' });
      const ws = sim.workspaces()[0]!;
      expect((await api(sim, 'PUT', `/workspaces/${ws.id}/autostart`, { json: { schedule: 'CRON_TZ=UTC 0 9 * * *' } })).status).toBe(204);
      const tpl = (await api<Record<string, unknown>>(sim, 'GET', `/templates/${sim.template.id}`)).body;
      expect((await api(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { ...tpl, allow_user_autostart: false } })).status).toBe(200);
      expect((await api(sim, 'PUT', `/workspaces/${ws.id}/autostart`, { json: { schedule: 'CRON_TZ=UTC 0 9 * * *' } })).status).toBe(400);
      await startBuild(sim, ws.id, { transition: 'stop' });
      const tick = await api<{ transitions: Record<string, string> }>(sim, 'POST', '/sim/lifecycle/tick', { json: { force: true } });
      expect(tick.body.transitions).toEqual({});
      sim.setLicence('agpl');
      // putWorkspaceAutostart asks the same store: the schedule may be set again.
      expect((await api(sim, 'PUT', `/workspaces/${ws.id}/autostart`, { json: { schedule: 'CRON_TZ=UTC 0 9 * * *' } })).status).toBe(204);
      const again = await api<{ transitions: Record<string, string> }>(sim, 'POST', '/sim/lifecycle/tick', { json: { force: true } });
      expect(again.body.transitions).toEqual({ [ws.id]: 'start' });
      await waitForBuild(sim, await latestBuildId(sim, ws.id));
    });
  });
});
