import { registerScanCommand } from '../../src/cli/commands/scan';
import { EXIT } from '../../src/cli/io';
import type { ScanReport } from '../../src/client/fleet-scan';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { runCommand } from '../harness/cli';
import { api, fixtureSource, latestBuildId, migrateStateByHand, pushTemplateVersion, putState, startBuild, waitForBuild } from '../sim/helpers';

/** A mixed fleet on the simulator: one workspace of each health class (two damaged: forgotten and destroyed). */
describe('wsmigrate scan', () => {
  let sim: CoderSimulator;
  const saved = { ...process.env };
  const run = (...args: string[]) => runCommand(registerScanCommand, 'scan', ...args);
  const ws = (i: number) => sim.workspaces()[i];
  const name = (i: number) => `${ws(i).owner}/${ws(i).name}`;
  let newVersionId: string;
  let forgottenIn: number;
  let destroyedIn: number;

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 6, buildLatencyMs: 300, seed: 9 });
    Object.assign(process.env, { CODER_URL: sim.url, CODER_SESSION_TOKEN: sim.token });
    newVersionId = (await pushTemplateVersion(sim, fixtureSource('template-v1-guard'), { promote: true })).id;
    // 1: migrated the right way (stop, rename, PUT, start pinned to the _v1 version).
    await startBuild(sim, ws(1).id, { transition: 'stop' });
    const stopped1 = await latestBuildId(sim, ws(1).id);
    await putState(sim, stopped1, migrateStateByHand((await api(sim, 'GET', `/workspacebuilds/${stopped1}/state`)).text));
    expect((await startBuild(sim, ws(1).id, { transition: 'start', template_version_id: newVersionId })).job.status).toBe('succeeded');
    // 2: a user's Update: the guarded build fails and the state forgets the PVC.
    const { startBuildId } = await sim.updateAndRestart(ws(2).id);
    const failed = (await waitForBuild(sim, startBuildId)).build;
    expect(failed.job.status).toBe('failed');
    forgottenIn = failed.build_number;
    // 3: the KB's option A by hand with a plain start: the old version destroys the PVC.
    await startBuild(sim, ws(3).id, { transition: 'stop' });
    const stopped3 = await latestBuildId(sim, ws(3).id);
    await putState(sim, stopped3, migrateStateByHand((await api(sim, 'GET', `/workspacebuilds/${stopped3}/state`)).text));
    destroyedIn = (await startBuild(sim, ws(3).id, { transition: 'start' })).build_number;
    // 4: a state that is not a Terraform state.
    expect((await putState(sim, await latestBuildId(sim, ws(4).id), 'not a state')).status).toBe(204);
  }, 120_000);
  afterAll(async () => {
    process.env = saved;
    await sim.close();
  });

  it('classifies each workspace, exits 4, and only reads', async () => {
    // 5: busy: a stop still pending while the scan lists the workspaces.
    const busy = await api<{ id: string }>(sim, 'POST', `/workspaces/${ws(5).id}/builds`, { json: { transition: 'stop' } });
    expect(busy.status).toBe(201);
    const before = sim.requestLog().length;
    const r = await run('--template', sim.template.name, '--org', 'coder', '--json');
    const writes = sim.requestLog().slice(before).filter((e) => e.method !== 'GET');
    await waitForBuild(sim, busy.body.id);

    expect(writes).toEqual([]);
    expect(r.exitCode).toBe(EXIT.changesPending);
    expect(r.err).toMatch(/2 damaged and 1 unreadable workspace/);
    const report = JSON.parse(r.out) as ScanReport;
    expect(report.counts).toEqual({ unmigrated: 1, migrated: 1, damaged: 2, busy: 1, unreadable: 1 });
    const row = (i: number) => report.workspaces.find((w) => w.workspace === name(i))!;
    expect(row(0).health).toBe('unmigrated');
    expect(row(1)).toMatchObject({ health: 'migrated', latestBuild: { transition: 'start', status: 'running' } });
    expect(row(2)).toMatchObject({
      health: 'damaged',
      latestBuild: { number: forgottenIn, status: 'failed' },
      damaged: { since: forgottenIn, losses: [{ address: 'kubernetes_persistent_volume_claim.home', kind: 'forgotten', build: forgottenIn }] },
    });
    expect(row(3)).toMatchObject({
      health: 'damaged',
      damaged: { since: destroyedIn, losses: [{ address: 'kubernetes_persistent_volume_claim_v1.home', kind: 'destroyed', build: destroyedIn }] },
    });
    expect(row(4).health).toBe('unreadable');
    expect(row(4).reason).toMatch(/not a Terraform state.*not valid JSON/);
    expect(row(5)).toMatchObject({ health: 'busy', reason: expect.stringMatching(/\(stop\) is (pending|running)/) });
  });

  it('prints counts and a row per workspace for humans', async () => {
    const r = await run('--template', sim.template.name);
    expect(r.exitCode).toBe(EXIT.changesPending);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/: 6 workspace\(s\): unmigrated 2, migrated 1, damaged 2, busy 0, unreadable 1$/); // the stop finished: 5 is no longer busy
    const line = (i: number) => lines.find((l) => l.startsWith(name(i)))!;
    expect(line(2)).toMatch(new RegExp(`damaged .*#${forgottenIn} start failed .*since build #${forgottenIn}: kubernetes_persistent_volume_claim.home forgotten by build #${forgottenIn}`));
    expect(line(3)).toMatch(new RegExp(`damaged .*destroyed by build #${destroyedIn}`));
    expect(line(5)).toMatch(/unmigrated/); // the stop finished: no longer busy
    // A finished build reads as finished: its job succeeded, the workspace is running.
    expect(line(1)).toMatch(/#\d+ start succeeded \(workspace running\)/);
    expect(line(1)).not.toMatch(/#\d+ start running/);
  });

  it('a template Coder does not know is a usage error, not "0 workspaces" (a typo must not keep a CI check green)', async () => {
    const typo = await run('--template', 'no-such-template', '--json');
    expect(typo.exitCode).toBe(EXIT.usage);
    expect(typo.out).toBe('');
    expect(typo.err).toMatch(/^no template 'no-such-template' in Coder's default organization, .*or pass --org/);
    const inOrg = await run('--template', sim.template.name, '--org', 'no-such-org');
    expect(inOrg.exitCode).toBe(EXIT.usage);
    expect(inOrg.err).toMatch(/^no template '.*' in organization 'no-such-org' \(or no such organization\)/);
  });

  it('exits 0 when nothing is damaged or unreadable, and refuses a bad --concurrency', async () => {
    // A template that exists and has no workspace: nothing to report, nothing wrong.
    const empty = await startSimulator({ workspaces: 0 });
    try {
      Object.assign(process.env, { CODER_URL: empty.url, CODER_SESSION_TOKEN: empty.token });
      const other = await run('--template', empty.template.name, '--json');
      expect(other.exitCode).toBe(EXIT.ok);
      expect(JSON.parse(other.out).counts).toEqual({ unmigrated: 0, migrated: 0, damaged: 0, busy: 0, unreadable: 0 });
    } finally {
      Object.assign(process.env, { CODER_URL: sim.url, CODER_SESSION_TOKEN: sim.token });
      await empty.close();
    }
    const bad = await run('--template', sim.template.name, '--concurrency', '0');
    expect(bad.exitCode).toBe(EXIT.usage);
    expect(bad.err).toMatch(/--concurrency must be a positive integer/);
  });
});
