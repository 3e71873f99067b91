import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, fixtureSource, homePvcName, latestBuildId, migrateStateByHand, pushTemplateVersion, putState, startBuild, waitForBuild, type BuildJson } from './helpers';

/** The next 09:00 UTC strictly after `after`. */
function next9Utc(after: Date): Date {
  const d = new Date(Date.UTC(after.getUTCFullYear(), after.getUTCMonth(), after.getUTCDate(), 9, 0, 0));
  if (d.getTime() <= after.getTime()) d.setUTCDate(d.getUTCDate() + 1);
  return d;
}

/**
 * The lifecycle executor (coderd/autobuild/lifecycle_executor.go) on a clock the test drives:
 * autostart on the schedule, autostop at the deadline, each on the previous build's version unless
 * the workspace updates automatically or (Premium) the template requires its active version.
 */
describe('simulator: the lifecycle executor', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 2, seed: 51, buildLatencyMs: 5 });
  });
  afterEach(async () => sim.close());

  const put = (wsId: string, what: string, json: unknown, token?: string) => api<{ message: string; validations?: { field: string }[] }>(sim, 'PUT', `/workspaces/${wsId}/${what}`, { json, ...(token ? { token } : {}) });
  const latest = async (wsId: string) => (await api<BuildJson & { reason: string; deadline: string | null }>(sim, 'GET', `/workspacebuilds/${await latestBuildId(sim, wsId)}`)).body;

  async function stoppedWithSchedule(): Promise<{ wsId: string; stop: BuildJson }> {
    const ws = sim.workspaces()[0]!;
    const stop = await startBuild(sim, ws.id, { transition: 'stop' });
    expect((await put(ws.id, 'autostart', { schedule: 'CRON_TZ=UTC 0 9 * * *' }, sim.tokenOf(ws.owner))).status).toBe(204);
    return { wsId: ws.id, stop };
  }

  test('autostart fires when the schedule comes round after the stop, not before, on the previous build\'s version', async () => {
    const { wsId, stop } = await stoppedWithSchedule();
    const v1 = await pushTemplateVersion(sim, fixtureSource('template-v1'), { promote: true });
    const nine = next9Utc(new Date());
    expect(sim.lifecycleTick(new Date(nine.getTime() - 60_000)).transitions).toEqual({});
    const fired = sim.lifecycleTick(new Date(nine.getTime() + 30_000));
    expect(fired).toMatchObject({ at: nine.toISOString(), transitions: { [wsId]: 'start' } });
    const start = await latest(wsId);
    expect(start).toMatchObject({ transition: 'start', reason: 'autostart', template_version_id: stop.template_version_id });
    expect(start.template_version_id).not.toBe(v1.id);
    await waitForBuild(sim, start.id);
    // Running now: the same tick fires nothing more.
    expect(sim.lifecycleTick(new Date(nine.getTime() + 30_000)).transitions).toEqual({});
  });

  test('the hazard of the old runbook: a state pushed under the old version is destroyed by the next autostart', async () => {
    const { wsId } = await stoppedWithSchedule();
    const uid = sim.cluster.pvc('coder', homePvcName(wsId))?.uid;
    expect((await putState(sim, await latestBuildId(sim, wsId), migrateStateByHand(sim.stateOf(wsId)))).status).toBe(204);
    await pushTemplateVersion(sim, fixtureSource('template-v1'), { promote: true });
    sim.lifecycleTick(new Date(next9Utc(new Date()).getTime() + 1000));
    await waitForBuild(sim, (await latest(wsId)).id);
    expect(sim.cluster.pvcLosses()).toEqual([expect.objectContaining({ workspace: wsId, oldUid: uid })]);
  });

  test('automatic_updates always: autostart builds the active version', async () => {
    const { wsId } = await stoppedWithSchedule();
    const v1 = await pushTemplateVersion(sim, fixtureSource('template-v1'), { promote: true });
    expect((await put(wsId, 'autoupdates', { automatic_updates: 'always' })).status).toBe(204);
    expect((await api<{ automatic_updates: string }>(sim, 'GET', `/workspaces/${wsId}`)).body.automatic_updates).toBe('always');
    sim.lifecycleTick(new Date(next9Utc(new Date()).getTime()));
    expect(await latest(wsId)).toMatchObject({ transition: 'start', template_version_id: v1.id });
  });

  test('ttl: a start completes with a deadline; autostop fires at it, on the previous build\'s version', async () => {
    const ws = sim.workspaces()[1]!;
    expect((await put(ws.id, 'ttl', { ttl_ms: 2 * 3_600_000 })).status).toBe(204);
    await startBuild(sim, ws.id, { transition: 'stop' });
    const before = Date.now();
    const start = await startBuild(sim, ws.id, { transition: 'start' });
    const deadline = Date.parse((await latest(ws.id)).deadline ?? '');
    expect(deadline).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
    expect(sim.lifecycleTick(new Date(deadline - 120_000)).transitions).toEqual({});
    expect(sim.lifecycleTick(new Date(deadline + 60_000)).transitions).toEqual({ [ws.id]: 'stop' });
    expect(await latest(ws.id)).toMatchObject({ transition: 'stop', reason: 'autostop', template_version_id: start.template_version_id });
  });

  test('force fires every workspace with a schedule or a deadline now; one with a build already active is an error, not a build', async () => {
    const { wsId } = await stoppedWithSchedule();
    const other = sim.workspaces()[1]!;
    await put(other.id, 'ttl', { ttl_ms: 3_600_000 });
    await startBuild(sim, other.id, { transition: 'stop' });
    await startBuild(sim, other.id, { transition: 'start' });
    // A stop already pending on the first: its autostart cannot be queued (409).
    const busy = await api<{ id: string }>(sim, 'POST', `/workspaces/${wsId}/builds`, { json: { transition: 'stop' } });
    const res = await api<{ transitions: Record<string, string>; errors: Record<string, string> }>(sim, 'POST', '/sim/lifecycle/tick', { json: { force: true } });
    expect(res.status).toBe(200);
    expect(res.body.transitions).toEqual({ [other.id]: 'stop' });
    expect(res.body.errors[wsId]).toMatch(/^409 A workspace build is already active/);
    await waitForBuild(sim, busy.body.id);
  });

  test('on Premium with require_active_version, autostart builds the active version; on AGPL the setting changes nothing', async () => {
    for (const licence of ['premium', 'agpl'] as const) {
      const s = await startSimulator({ workspaces: 1, seed: 52, buildLatencyMs: 5, licence });
      try {
        const ws = s.workspaces()[0]!;
        await startBuild(s, ws.id, { transition: 'stop' });
        await api(s, 'PUT', `/workspaces/${ws.id}/autostart`, { json: { schedule: '0 9 * * *' } });
        const v1 = await pushTemplateVersion(s, fixtureSource('template-v1'), { promote: true });
        const t = (await api<Record<string, unknown>>(s, 'GET', `/templates/${s.template.id}`)).body;
        await api(s, 'PATCH', `/templates/${s.template.id}`, { json: { ...t, require_active_version: true } });
        s.lifecycleTick(undefined, { force: true });
        const built = (await api<BuildJson>(s, 'GET', `/workspacebuilds/${await latestBuildId(s, ws.id)}`)).body;
        expect([licence, built.template_version_id]).toEqual([licence, licence === 'premium' ? v1.id : s.template.originalVersionId]);
        await waitForBuild(s, built.id);
      } finally {
        await s.close();
      }
    }
  });

  test('dormancy (time_til_dormant): a running workspace is stopped on its previous version, reason dormancy, and made dormant; a stopped one is only made dormant; a dormant one is never autostopped', async () => {
    const [running, stopped] = sim.workspaces();
    await startBuild(sim, stopped!.id, { transition: 'stop' });
    expect((await put(running!.id, 'ttl', { ttl_ms: 3_600_000 }, sim.tokenOf(running!.owner))).status).toBe(204);
    const t = (await api<Record<string, unknown>>(sim, 'GET', `/templates/${sim.template.id}`)).body;
    expect((await api(sim, 'PATCH', `/templates/${sim.template.id}`, { json: { ...t, time_til_dormant_ms: 7 * 86_400_000 } })).status).toBe(200);
    const before = await latest(running!.id);
    // A day short of the threshold: nothing.
    expect(sim.lifecycleTick(new Date(Date.now() + 6 * 86_400_000), { workspaceIds: [running!.id, stopped!.id] }).transitions).toEqual({});
    const fired = sim.lifecycleTick(new Date(Date.now() + 8 * 86_400_000), { workspaceIds: [running!.id, stopped!.id] });
    expect(fired.transitions).toEqual({ [running!.id]: 'stop' });
    const stop = await latest(running!.id);
    expect(stop).toMatchObject({ transition: 'stop', reason: 'dormancy', template_version_id: before.template_version_id, build_number: before.build_number + 1 });
    await waitForBuild(sim, stop.id);
    for (const id of [running!.id, stopped!.id]) expect((await api<{ dormant_at: string | null }>(sim, 'GET', `/workspaces/${id}`)).body.dormant_at).not.toBeNull();
    // Dormant: no second dormancy, no autostart, no autostop even when forced.
    expect(sim.lifecycleTick(new Date(Date.now() + 9 * 86_400_000), { force: true, workspaceIds: [running!.id, stopped!.id] }).transitions).toEqual({});
    // Made active, started (a deadline from its ttl), made dormant by hand: isEligibleForAutostop skips it too.
    expect((await api(sim, 'PUT', `/workspaces/${running!.id}/dormant`, { json: { dormant: false } })).status).toBe(200);
    await startBuild(sim, running!.id, { transition: 'start' });
    expect((await latest(running!.id)).deadline).not.toBeNull();
    expect((await api(sim, 'PUT', `/workspaces/${running!.id}/dormant`, { json: { dormant: true } })).status).toBe(200);
    expect(sim.lifecycleTick(new Date(Date.now() + 2 * 3_600_000), { force: true, workspaceIds: [running!.id] }).transitions).toEqual({});
  });

  test('the settings routes refuse bad values naming the field, and need update on the workspace', async () => {
    const ws = sim.workspaces()[0]!;
    const bad = await put(ws.id, 'autostart', { schedule: 'CRON_TZ=UTC 0 9 1 * *' });
    expect(bad).toMatchObject({ status: 400, body: { message: 'Invalid autostart schedule.', validations: [{ field: 'schedule' }] } });
    expect((await put(ws.id, 'autostart', { schedule: 'CRON_TZ=Mars/Olympus 0 9 * * *' })).status).toBe(400);
    expect((await put(ws.id, 'ttl', { ttl_ms: 1000 })).body).toMatchObject({ validations: [{ field: 'ttl_ms', detail: 'time until shutdown must be at least one minute' }] });
    expect((await put(ws.id, 'autoupdates', { automatic_updates: 'sometimes' })).status).toBe(400);
    expect((await put(ws.id, 'autostart', { schedule: '30 9 * * 1-5' }, sim.tokenFor('template-admin'))).status).toBe(403);
    expect((await put(ws.id, 'autostart', { schedule: '30 9 * * 1-5' }, sim.tokenOf(sim.workspaces()[1]!.owner))).status).toBe(404);
    expect((await put(ws.id, 'autostart', { schedule: '30 9 * * 1-5' }, sim.tokenOf(ws.owner))).status).toBe(204);
    expect((await api<{ autostart_schedule: string }>(sim, 'GET', `/workspaces/${ws.id}`)).body.autostart_schedule).toBe('30 9 * * 1-5');
    expect((await put(ws.id, 'autostart', {})).status).toBe(204);
    expect((await api<{ autostart_schedule: string | null }>(sim, 'GET', `/workspaces/${ws.id}`)).body.autostart_schedule).toBeNull();
  });

  test('workspace_ids restricts a tick to those workspaces', async () => {
    const [a, b] = sim.workspaces();
    for (const ws of [a!, b!]) {
      await put(ws.id, 'ttl', { ttl_ms: 3_600_000 });
      await startBuild(sim, ws.id, { transition: 'stop' });
      await startBuild(sim, ws.id, { transition: 'start' });
    }
    const res = await api<{ transitions: Record<string, string> }>(sim, 'POST', '/sim/lifecycle/tick', { json: { force: true, workspace_ids: [b!.id] } });
    expect(res.body.transitions).toEqual({ [b!.id]: 'stop' });
    expect((await api(sim, 'POST', '/sim/lifecycle/tick', { json: { workspace_ids: 'all' } })).status).toBe(400);
    await waitForBuild(sim, (await latest(b!.id)).id);
  });

  test('the tick endpoint is for Owners only and refuses a bad time', async () => {
    expect((await api(sim, 'POST', '/sim/lifecycle/tick', { token: sim.memberToken, json: {} })).status).toBe(403);
    expect((await api(sim, 'POST', '/sim/lifecycle/tick', { json: { at: 'tomorrow' } })).status).toBe(400);
    const now = await api<{ at: string }>(sim, 'POST', '/sim/lifecycle/tick', { json: { at: '2026-12-01T09:30:45Z' } });
    expect(now.body.at).toBe('2026-12-01T09:30:00.000Z');
  });
});

describe('simulator: the lifecycle executor on its own clock (lifecycleIntervalMs)', () => {
  test('is off by default, and when asked fires without a tick: at its clock (run an hour ahead) a one-minute ttl stops the workspace', async () => {
    const quiet = await startSimulator({ workspaces: 1, seed: 53, buildLatencyMs: 5 });
    const timed = await startSimulator({ workspaces: 1, seed: 54, buildLatencyMs: 5, lifecycleIntervalMs: 100, lifecycleClock: () => new Date(Date.now() + 3_600_000) });
    try {
      for (const s of [quiet, timed]) {
        const ws = s.workspaces()[0]!;
        await api(s, 'PUT', `/workspaces/${ws.id}/ttl`, { json: { ttl_ms: 60_000 } });
        await startBuild(s, ws.id, { transition: 'stop' });
        await startBuild(s, ws.id, { transition: 'start' });
      }
      const stopped = async (s: CoderSimulator) => (await api<BuildJson>(s, 'GET', `/workspacebuilds/${await latestBuildId(s, s.workspaces()[0]!.id)}`)).body.transition === 'stop';
      const deadline = Date.now() + 30_000;
      while (!(await stopped(timed))) {
        if (Date.now() > deadline) throw new Error('the executor never stopped the workspace');
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(await stopped(quiet)).toBe(false);
    } finally {
      await quiet.close();
      await timed.close();
    }
    await expect(startSimulator({ lifecycleIntervalMs: 1.5 })).rejects.toThrow(/lifecycleIntervalMs must be a whole number/);
  });
});
