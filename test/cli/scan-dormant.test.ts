import { registerScanCommand } from '../../src/cli/commands/scan';
import { EXIT } from '../../src/cli/io';
import type { ScanReport } from '../../src/client/fleet-scan';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { runCommand } from '../harness/cli';
import { api } from '../sim/helpers';

/** A dormant workspace: Coder starts it for nobody until it is made active, and the scan says so and what to do. */
describe('wsmigrate scan: a dormant workspace', () => {
  let sim: CoderSimulator;
  const saved = { ...process.env };
  const run = (...args: string[]) => runCommand(registerScanCommand, 'scan', ...args);
  const ws = (i: number) => sim.workspaces()[i];
  const name = (i: number) => `${ws(i).owner}/${ws(i).name}`;

  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, buildLatencyMs: 50, seed: 3 });
    Object.assign(process.env, { CODER_URL: sim.url, CODER_SESSION_TOKEN: sim.token });
    expect((await api(sim, 'PUT', `/workspaces/${ws(1).id}/dormant`, { json: { dormant: true } })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    process.env = saved;
    await sim.close();
  });

  it('marks it dormant in --json, with how to make it active; the active one is not marked', async () => {
    const r = await run('--template', sim.template.name, '--json');
    expect(r.exitCode).toBe(EXIT.ok);
    const report = JSON.parse(r.out) as ScanReport;
    const row = (i: number) => report.workspaces.find((w) => w.workspace === name(i))!;
    expect(row(0).dormant).toBeUndefined();
    expect(row(1)).toMatchObject({
      health: 'unmigrated',
      dormant: {
        since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        action: expect.stringContaining(`makes it active first (its page in the dashboard, or PUT /api/v2/workspaces/${ws(1).id}/dormant {"dormant": false})`),
      },
    });
    expect(row(1).dormant?.action).toMatch(/^Coder lets nobody start a dormant workspace, so a migration or recovery that must start it refuses it; its owner or an admin/);
  });

  it('marks its row DORMANT for humans and says, after the table, who must act and how', async () => {
    const r = await run('--template', sim.template.name);
    expect(r.exitCode).toBe(EXIT.ok);
    const lines = r.out.split('\n');
    const line = (i: number) => lines.find((l) => l.startsWith(name(i)))!;
    expect(line(1)).toMatch(/unmigrated .* DORMANT since \d{4}-\d\d-\d\dT[^;]*; /);
    expect(line(0)).not.toMatch(/DORMANT/);
    expect(lines).toContain(`1 dormant workspace(s): ${name(1)}.`);
    expect(lines.find((l) => l.startsWith(`  ${name(1)}: dormant since`))).toMatch(
      new RegExp(`its owner or an admin makes it active first \\(its page in the dashboard, or PUT /api/v2/workspaces/${ws(1).id}/dormant \\{"dormant": false\\}\\)$`),
    );
  });
});
