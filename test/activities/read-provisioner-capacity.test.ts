import type { ActivityDeps } from '../../src/activities';
import { makeReadProvisionerCapacity } from '../../src/activities/read-provisioner-capacity';
import { CoderClient } from '../../src/adapters/coder';
import { startSimulator, type CoderSimulator } from '../../src/sim';

describe("readProvisionerCapacity: Coder's daemons and jobs, ours told from the users'", () => {
  let sim: CoderSimulator;
  beforeAll(async () => {
    // Two organization daemons, and one of a user's own (tagged for them alone): it never takes the template's jobs.
    sim = await startSimulator({
      workspaces: 2,
      seed: 31,
      buildLatencyMs: 1500,
      provisioners: [{ name: 'sim-provisioner-1' }, { name: 'sim-provisioner-2' }, { name: 'alice-laptop', tags: { scope: 'user', owner: 'alice' } }],
      moreTemplates: [{ name: 'team-tools', workspaces: 2, versioned: true }],
    });
  });
  afterAll(async () => sim.close());
  const read = (token: string, gauges: [string, number, boolean][] = []) =>
    makeReadProvisionerCapacity({
      coder: new CoderClient({ url: sim.url, token, retry: { maxAttempts: 1 } }),
      metrics: { fleetPacing: (t: string, w: number, h: boolean) => gauges.push([t, w, h]) },
    } as unknown as ActivityDeps)({ organization: 'coder', template: sim.template.name, share: 0.5, concurrency: 10 });

  it("counts the online daemons, the users' jobs and our own: holds with no daemon online, full once ours fill the share", async () => {
    for (const d of sim.provisionerDaemons()) if (d.name !== 'alice-laptop') sim.setDaemonOffline(d.name);
    const user = sim.workspaces().find((w) => w.name.startsWith('team-tools'));
    const ours = sim.workspaces().find((w) => !w.name.startsWith('team-tools'));
    await new CoderClient({ url: sim.url, token: sim.tokenOf(user?.owner as string) }).createWorkspaceBuild(user?.id as string, { transition: 'stop' });
    await new CoderClient({ url: sim.url, token: sim.token }).createWorkspaceBuild(ours?.id as string, { transition: 'stop' });
    const held = await read(sim.token);
    expect(held).toMatchObject({ known: true, decision: { width: 0, hold: expect.stringMatching(/no provisioner daemon is online/) } });
    // Coder leaves offline daemons out of its list unless asked (offline=true): none counted offline here; the user's own daemon, online, is not the template's.
    expect(held.known && held.capacity).toEqual({ daemons: 0, busy: 0, offline: 0, usersQueued: 1, usersRunning: 0, oursActive: 1 });
    // One daemon back: it takes the user's job (queued first); ours waits.
    sim.setDaemonOffline(sim.provisionerDaemons()[1]?.name as string, false);
    for (let i = 0; i < 200 && !sim.provisionerDaemons().some((d) => d.status === 'busy'); i++) await new Promise((r) => setTimeout(r, 5));
    const gauges: [string, number, boolean][] = [];
    const reading = await read(sim.token, gauges);
    expect(reading.known).toBe(true);
    if (!reading.known) return;
    expect(reading.capacity).toEqual({ daemons: 1, busy: 1, offline: 0, usersQueued: 0, usersRunning: 1, oursActive: 1 });
    expect(reading.decision).toEqual({ width: 2, full: true });
    expect(gauges).toEqual([[sim.template.name, 2, false]]);
  });

  it('a token without the right (a member) gets 404: the reading says so and the fleet falls back', async () => {
    const reading = await read(sim.memberToken);
    expect(reading).toEqual({ known: false, reason: expect.stringMatching(/Coder answered 404 to GET \/organizations\/coder\/provisionerdaemons \(a token without read on provisioner jobs/) });
  });

  it('a Coder that fails the daemons or jobs read (500 after the retries) fails the step for a retry, naming it; the fleet does not fall back on a guess', async () => {
    for (const path of ['/provisionerdaemons', '/provisionerjobs']) {
      sim.setFaults({ error500Rate: 1, only: [path] });
      try {
        await expect(read(sim.token)).rejects.toMatchObject({ type: 'CoderApi.server', nonRetryable: false, message: expect.stringMatching(/^provisioner capacity failed for organization coder: /) });
      } finally {
        sim.setFaults(undefined);
      }
    }
  });
});
