import { startSimulator, type CoderSimulator } from '../../src/sim';
import { api, latestBuildId, startBuild, waitForBuild, type BuildJson } from './helpers';

/** The next 09:00 UTC strictly after `after`. */
function next9Utc(after: Date): Date {
  const d = new Date(Date.UTC(after.getUTCFullYear(), after.getUTCMonth(), after.getUTCDate(), 9, 0, 0));
  if (d.getTime() <= after.getTime()) d.setUTCDate(d.getUTCDate() + 1);
  return d;
}

/**
 * Suspended (and dormant) users as coderd/coder has them: coderd/users.go putUserStatus (the suspend
 * and activate routes), coderd/httpmw/apikey.go (a non-active user's token is a 401),
 * coderd/autobuild/lifecycle_executor.go (isEligibleForAutostop stops a suspended owner's running
 * workspace at once; isEligibleForAutostart starts none for an owner who is not active) and
 * coderd/wsbuilder/wsbuilder.go (buildTx never reads the owner's status: an admin may build it).
 */
describe('simulator: suspended and dormant owners', () => {
  let sim: CoderSimulator;
  beforeEach(async () => {
    sim = await startSimulator({ workspaces: 2, seed: 61, buildLatencyMs: 5 });
  });
  afterEach(async () => sim.close());

  type UserJson = { username: string; status: string; message?: string };
  const status = (user: string, to: 'suspend' | 'activate', token?: string) => api<UserJson>(sim, 'PUT', `/users/${user}/status/${to}`, token ? { token } : {});
  const latest = async (wsId: string) => (await api<BuildJson & { reason: string }>(sim, 'GET', `/workspacebuilds/${await latestBuildId(sim, wsId)}`)).body;

  test('an Owner suspends a user (200, status suspended); its token is then a 401 naming the status until it is activated', async () => {
    const owner = sim.workspaces()[0]!.owner;
    const before = await api<UserJson>(sim, 'GET', `/users/${owner}`);
    expect(before.body.status).toBe('active');
    const suspended = await status(owner, 'suspend');
    expect(suspended.status).toBe(200);
    expect(suspended.body).toMatchObject({ username: owner, status: 'suspended' });
    expect((await api<UserJson>(sim, 'GET', `/users/${owner}`)).body.status).toBe('suspended');
    const refused = await api<UserJson>(sim, 'GET', '/users/me', { token: sim.tokenOf(owner) });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('User is not active (status = "suspended"). Contact an admin to reactivate your account.');
    expect((await status(owner, 'activate')).body.status).toBe('active');
    expect((await api(sim, 'GET', '/users/me', { token: sim.tokenOf(owner) })).status).toBe(200);
  });

  test('nobody suspends themself or an Owner (400); a member may not suspend anyone (404)', async () => {
    const self = await status('me', 'suspend');
    expect(self.status).toBe(400);
    expect(self.body.message).toBe('You cannot suspend yourself.');
    const other = sim.tokenFor('owner', 'second-owner');
    const owner = await status('second-owner', 'suspend');
    expect(owner.status).toBe(400);
    expect(owner.body.message).toContain('"owner" role');
    expect((await status(sim.workspaces()[0]!.owner, 'suspend', sim.memberToken)).status).toBe(404);
    expect((await api<UserJson>(sim, 'GET', '/users/me', { token: other })).body.status).toBe('active');
  });

  test("a suspended owner's running workspace is stopped by the next tick, without a deadline, on its version, reason autostop", async () => {
    const ws = sim.workspaces()[0]!;
    const start = await latest(ws.id);
    expect(sim.lifecycleTick().transitions).toEqual({});
    await status(ws.owner, 'suspend');
    expect(sim.lifecycleTick().transitions).toEqual({ [ws.id]: 'stop' });
    const stop = await latest(ws.id);
    expect(stop).toMatchObject({ transition: 'stop', reason: 'autostop', template_version_id: start.template_version_id });
    await waitForBuild(sim, stop.id);
    // Stopped: nothing more, and the other owner's workspace was never touched.
    expect(sim.lifecycleTick().transitions).toEqual({});
  });

  test("neither a dormant workspace nor a failed start of a suspended owner is stopped", async () => {
    const [a, b] = sim.workspaces();
    expect((await api(sim, 'PUT', `/workspaces/${a!.id}/dormant`, { json: { dormant: true } })).status).toBe(200);
    sim.setFaults({ failBuilds: { workspaceId: b!.id, transition: 'start' } });
    await startBuild(sim, b!.id, { transition: 'stop' });
    expect((await startBuild(sim, b!.id, { transition: 'start' })).job.status).toBe('failed');
    sim.setFaults(undefined);
    sim.setUserStatus(a!.owner, 'suspended');
    sim.setUserStatus(b!.owner, 'suspended');
    expect(sim.lifecycleTick().transitions).toEqual({});
  });

  test('autostart starts nothing for a suspended or dormant owner; a dormant owner is not stopped, and is active again on its next call', async () => {
    const [a, b] = sim.workspaces();
    for (const ws of [a!, b!]) {
      await startBuild(sim, ws.id, { transition: 'stop' });
      expect((await api(sim, 'PUT', `/workspaces/${ws.id}/autostart`, { json: { schedule: 'CRON_TZ=UTC 0 9 * * *' }, token: sim.tokenOf(ws.owner) })).status).toBe(204);
    }
    sim.setUserStatus(a!.owner, 'suspended');
    sim.setUserStatus(b!.owner, 'dormant');
    const nine = new Date(next9Utc(new Date()).getTime() + 30_000);
    expect(sim.lifecycleTick(nine).transitions).toEqual({});
    // coderd/httpmw/apikey.go: a dormant user's call makes it active; then its autostart fires.
    expect((await api<UserJson>(sim, 'GET', '/users/me', { token: sim.tokenOf(b!.owner) })).body.status).toBe('active');
    expect(sim.lifecycleTick(nine).transitions).toEqual({ [b!.id]: 'start' });
    await waitForBuild(sim, (await latest(b!.id)).id);
    sim.setUserStatus(b!.owner, 'dormant');
    expect(sim.lifecycleTick().transitions).toEqual({});
  });

  test("an Owner may still build a suspended owner's workspace: the build runs and succeeds", async () => {
    const ws = sim.workspaces()[0]!;
    await status(ws.owner, 'suspend');
    const stop = await startBuild(sim, ws.id, { transition: 'stop' });
    expect(stop.job.status).toBe('succeeded');
    const start = await startBuild(sim, ws.id, { transition: 'start' });
    expect(start.job.status).toBe('succeeded');
    expect((await latest(ws.id)).reason).toBe('initiator');
  });
});
