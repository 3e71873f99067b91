import { registerScanCommand } from '../../src/cli/commands/scan';
import { EXIT } from '../../src/cli/io';
import type { ScanReport } from '../../src/client/fleet-scan';
import type { OrganizationScanReport } from '../../src/client/org-scan';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { runCommand } from '../harness/cli';
import { api, fixtureSource, latestBuildId, migrateStateByHand, pushTemplateVersion, putState, startBuild, waitForBuild } from '../sim/helpers';

/**
 * An admin promotes the pre-migration version again (a rollback) after the template was migrated: each
 * migrated workspace's Update (and an autostart with automatic updates "always") would build the old
 * version on its _v1 state and destroy its PVC. scan says so, with the command that puts the migrated
 * version back, and exits 4; an unmigrated workspace on the old version is not at risk.
 */
describe('wsmigrate scan after a rollback of the template', () => {
  let sim: CoderSimulator;
  const saved = { ...process.env };
  const run = (...args: string[]) => runCommand(registerScanCommand, 'scan', ...args);
  const ws = (i: number) => sim.workspaces()[i];
  const name = (i: number) => `${ws(i).owner}/${ws(i).name}`;
  const MIGRATED = 'migrated-v1';
  const promote = (id: string) => api(sim, 'PATCH', `/templates/${sim.template.id}/versions`, { json: { id } });
  let migratedId: string;

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 3, buildLatencyMs: 50, seed: 11 });
    Object.assign(process.env, { CODER_URL: sim.url, CODER_SESSION_TOKEN: sim.token });
    migratedId = (await pushTemplateVersion(sim, fixtureSource('template-v1-guard'), { promote: true, name: MIGRATED })).id;
    for (const i of [0, 1]) {
      await startBuild(sim, ws(i).id, { transition: 'stop' });
      const stopped = await latestBuildId(sim, ws(i).id);
      await putState(sim, stopped, migrateStateByHand((await api(sim, 'GET', `/workspacebuilds/${stopped}/state`)).text));
      expect((await startBuild(sim, ws(i).id, { transition: 'start', template_version_id: migratedId })).job.status).toBe('succeeded');
    }
    expect((await api(sim, 'PUT', `/workspaces/${ws(1).id}/autoupdates`, { json: { automatic_updates: 'always' } })).status).toBe(204);
    expect((await api(sim, 'PUT', `/workspaces/${ws(1).id}/autostart`, { json: { schedule: 'CRON_TZ=UTC 30 9 * * 1-5' } })).status).toBe(204);
    expect((await promote(sim.template.originalVersionId)).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    process.env = saved;
    await sim.close();
  });

  it('marks the migrated workspaces AT RISK in --json, with who fires it and the promote command, and exits 4', async () => {
    const r = await run('--template', sim.template.name, '--json');
    expect(r.exitCode).toBe(EXIT.changesPending);
    expect(r.err).toMatch(/2 workspace\(s\) AT RISK: the template's active version would destroy their migrated volumes/);
    const report = JSON.parse(r.out) as ScanReport;
    expect(report.atRisk).toBe(2);
    const row = (i: number) => report.workspaces.find((w) => w.workspace === name(i))!;
    expect(row(0)).toMatchObject({
      health: 'migrated',
      atRisk: {
        objects: [{ address: 'kubernetes_persistent_volume_claim_v1.home', why: expect.stringContaining('declares the old kubernetes_persistent_volume_claim.home') }],
        firedBy: ["its owner's Update (the dashboard builds the active version)"],
        action: expect.stringContaining(`coder templates versions promote --template ${sim.template.name} --template-version ${MIGRATED}`),
      },
    });
    // coderd computes next_start_at from the schedule (coderd/schedule/autostart.go); the scan shows Coder's time.
    const nextStartAt = (await api<{ next_start_at: string | null }>(sim, 'GET', `/workspaces/${ws(1).id}`)).body.next_start_at;
    expect(nextStartAt).toMatch(/T09:30:00\.000Z$/);
    expect(row(1).atRisk?.firedBy).toEqual([expect.stringMatching(/Update/), `its autostart (automatic updates "always"), next at ${nextStartAt}`]);
    // Unmigrated, on the old version: its Update builds the types it holds.
    expect(row(2)).toMatchObject({ health: 'unmigrated' });
    expect(row(2).atRisk).toBeUndefined();
  });

  it('says so for humans: the count in the summary line, AT RISK in the rows, what to run after the table', async () => {
    const r = await run('--template', sim.template.name);
    expect(r.exitCode).toBe(EXIT.changesPending);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^template \S+: 3 workspace\(s\): unmigrated 1, migrated 2, .*; 2 AT RISK$/);
    expect(lines.find((l) => l.startsWith(name(0)))).toMatch(/migrated .* AT RISK \(active version /);
    expect(lines.find((l) => l.startsWith(name(2)))).not.toMatch(/AT RISK/);
    expect(r.out).toContain(`To do: promote the migrated version again: coder templates versions promote --template ${sim.template.name} --template-version ${MIGRATED}, then run 'wsmigrate scan' again.`);
  });

  it('--org counts them for the template', async () => {
    const r = await run('--org', 'coder', '--json');
    expect(r.exitCode).toBe(EXIT.changesPending);
    const report = JSON.parse(r.out) as OrganizationScanReport;
    expect(report.atRisk).toBe(2);
    expect(report.templates.find((t) => t.template === sim.template.name)?.atRisk).toBe(2);
    const human = await run('--org', 'coder');
    expect(human.out).toMatch(new RegExp(`\\n${sim.template.name}\\s+.*\\s2\\n`));
    // Its first thing to do is the promote, not a migration of the rolled-back version.
    expect(human.out).toMatch(new RegExp(`\\n${sim.template.name}\\s+\\S+\\s+promote the migrated version again \\(2 at risk, below\\)`));
    expect(human.out).toContain(`${sim.template.name}/${name(0)}: the active version declares the old`);
  });

  it('is green again once the migrated version is promoted again', async () => {
    expect((await promote(migratedId)).status).toBe(200);
    const r = await run('--template', sim.template.name, '--json');
    expect(r.exitCode).toBe(EXIT.ok);
    const report = JSON.parse(r.out) as ScanReport;
    expect(report.atRisk).toBe(0);
    expect(report.workspaces.filter((w) => w.atRisk)).toEqual([]);
  });

  it('was no guess: rolled back again, the Update of a workspace it marked destroys its PVC', async () => {
    expect((await promote(sim.template.originalVersionId)).status).toBe(200);
    const marked = (JSON.parse((await run('--template', sim.template.name, '--json')).out) as ScanReport).workspaces.filter((w) => w.atRisk).map((w) => w.workspace);
    expect(marked).toEqual([name(0), name(1)].sort());
    expect(sim.cluster.pvcLosses()).toEqual([]);
    await waitForBuild(sim, (await sim.updateAndRestart(ws(0).id)).startBuildId);
    expect(sim.cluster.pvcLosses().length).toBeGreaterThan(0);
  });

  it('judges a workspace whose state cannot be read from its version, a migrated one', async () => {
    expect((await putState(sim, await latestBuildId(sim, ws(1).id), 'not a state')).status).toBe(204);
    const r = await run('--template', sim.template.name, '--json');
    expect(r.exitCode).toBe(EXIT.changesPending);
    const row = (JSON.parse(r.out) as ScanReport).workspaces.find((w) => w.workspace === name(1))!;
    expect(row).toMatchObject({ health: 'unreadable', atRisk: { objects: [{ address: 'kubernetes_persistent_volume_claim_v1.home' }] } });
    expect(r.err).toMatch(/1 unreadable workspace\(s\).*; \d workspace\(s\) AT RISK/);
  });
});
