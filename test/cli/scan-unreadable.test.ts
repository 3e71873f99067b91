import { registerScanCommand } from '../../src/cli/commands/scan';
import { EXIT } from '../../src/cli/io';
import type { ScanReport } from '../../src/client/fleet-scan';
import { startSimulator, type CoderSimulator } from '../../src/sim';
import { runCommand } from '../harness/cli';
import { latestBuildId, putState } from '../sim/helpers';

/**
 * A workspace whose state cannot be read may be a damaged one: scan cannot say. A fleet whose only
 * problem is such a workspace still exits 4 (needs attention) naming it, so a script that gates on
 * the exit code does not go on as if every workspace were fine.
 */
describe('wsmigrate scan with an unreadable workspace and nothing damaged', () => {
  let sim: CoderSimulator;
  const saved = { ...process.env };
  beforeAll(async () => {
    sim = await startSimulator({ workspaces: 2, buildLatencyMs: 5 });
    Object.assign(process.env, { CODER_URL: sim.url, CODER_SESSION_TOKEN: sim.token });
    expect((await putState(sim, await latestBuildId(sim, sim.workspaces()[1].id), 'not a state')).status).toBe(204);
  });
  afterAll(async () => {
    process.env = saved;
    await sim?.close();
  });

  it('exits 4 naming the unreadable workspace count', async () => {
    const r = await runCommand(registerScanCommand, 'scan', '--template', sim.template.name, '--json');
    expect((JSON.parse(r.out) as ScanReport).counts).toMatchObject({ damaged: 0, unreadable: 1 });
    expect(r.exitCode).toBe(EXIT.changesPending);
    expect(r.err).toContain("0 damaged and 1 unreadable workspace(s); see 'wsmigrate recover --help'");
  });
});
