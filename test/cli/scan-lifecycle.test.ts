import { registerScanCommand } from '../../src/cli/commands/scan';
import { EXIT } from '../../src/cli/io';
import type { ScanReport } from '../../src/client/fleet-scan';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { runCommand } from '../harness/cli';
import { api } from '../sim/helpers';

const WEEK = 7 * 86_400_000;

/**
 * What Coder's lifecycle executor will do to dormant workspaces, as scan says it: deleted, home PVC and
 * all, at deleting_at (coderd/autobuild/lifecycle_executor.go isEligibleForDelete), and made active by
 * an admin only when the owner is suspended (coderd/httpmw/apikey.go: a suspended user cannot sign in).
 */
describe('wsmigrate scan: dormant workspaces Coder will delete, and suspended owners', () => {
  let sim: CoderSimulator;
  const saved = { ...process.env };
  const run = (...args: string[]) => runCommand(registerScanCommand, 'scan', ...args);
  const ws = (i: number) => sim.workspaces()[i]!;
  const name = (i: number) => `${ws(i).owner}/${ws(i).name}`;
  const deletingAt: string[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 3, buildLatencyMs: 20, seed: 5, dormancy: { timeTilDormantAutodeleteMs: WEEK } });
    Object.assign(process.env, { CODER_URL: sim.url, CODER_SESSION_TOKEN: sim.token });
    expect(new Set([ws(0).owner, ws(1).owner]).size).toBe(2);
    for (const i of [0, 1]) {
      const made = await api<{ deleting_at: string }>(sim, 'PUT', `/workspaces/${ws(i).id}/dormant`, { json: { dormant: true } });
      deletingAt.push(made.body.deleting_at);
    }
    expect((await api(sim, 'PUT', `/users/${ws(0).owner}/status/suspend`)).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    process.env = saved;
    await sim.close();
  });

  it('--json: each dormant row has deletingAt and says when Coder deletes it; a suspended owner\'s names an admin only', async () => {
    const r = await run('--template', sim.template.name, '--json');
    expect(r.exitCode).toBe(EXIT.ok);
    const report = JSON.parse(r.out) as ScanReport;
    const row = (i: number) => report.workspaces.find((w) => w.workspace === name(i))!;
    expect(row(0).dormant).toMatchObject({ deletingAt: deletingAt[0], ownerSuspended: true });
    expect(row(0).dormant?.action).toContain(`a Coder admin makes it active first, not its owner: ${ws(0).owner} is suspended and cannot sign in`);
    expect(row(0).dormant?.action).toMatch(/Coder deletes it, home PVC included, at \S+ \(the template's time_til_dormant_autodelete\) unless it is made active before$/);
    expect(row(1).dormant).toMatchObject({ deletingAt: deletingAt[1] });
    expect(row(1).dormant?.ownerSuspended).toBeUndefined();
    expect(row(1).dormant?.action).toContain('its owner or an admin makes it active first');
    expect(row(2).dormant).toBeUndefined();
  });

  it('for humans: the row says when Coder deletes it; the lines after the table say who acts', async () => {
    const r = await run('--template', sim.template.name);
    const lines = r.out.split('\n');
    expect(lines.find((l) => l.startsWith(name(1)))).toContain(`DORMANT since `);
    expect(lines.find((l) => l.startsWith(name(1)))).toContain(`, Coder deletes it at ${deletingAt[1]}; `);
    expect(lines.find((l) => l.startsWith(`  ${name(0)}: dormant since`))).toContain(`not its owner: ${ws(0).owner} is suspended`);
  });
});
