import { migrationStatus } from '../../src/client/migrations';
import type { WorkspaceMigrationStatus } from '../../src/contracts/migrate-workspace';
import { EXIT } from '../../src/cli/io';
import { runMain } from '../harness/cli';
import { cliAgainstWorker } from '../harness/cli-env';
import { waitFor } from '../harness/wait';

/**
 * `wsmigrate approve <id> --gate G --plan H` (the command status and `--wait` print) approves that
 * plan of that gate or nothing: an approver who read one plan and answers after the run moved on (a
 * later gate, a plan made again on someone's build) must not approve what they never read. Refused
 * (exit 3), the run still waits; only the decision that names what is pending is taken.
 */
describe('approve and reject with --gate and --plan, through the CLI', () => {
  const cli = cliAgainstWorker(1);

  it('a gate or plan that is not the pending one is refused and decides nothing; the pending one is decided', async () => {
    const ws = cli.env.sim.workspaces()[0];
    const id = `wsmigrate/${cli.env.sim.template.name}/${ws.owner}/${ws.name}`;
    const started = await runMain('migrate', 'workspace', `${ws.owner}/${ws.name}`, '--template', cli.env.sim.template.name, '--version', cli.version, '--approval', 'all', '--approver', 'sre');
    expect(started.exitCode).toBe(EXIT.ok);
    const pending = async () => ((await migrationStatus(cli.env.t.client, id)) as WorkspaceMigrationStatus).pendingApproval;
    await waitFor(async () => (await pending())?.gateId === 'stop', 90_000);
    const { planHash } = (await pending())!;
    const before = (await cli.env.coder.workspace(ws.id)).latest_build.id;

    const otherGate = await runMain('approve', id, '--approver', 'sre', '--gate', 'apply');
    expect(otherGate.exitCode).toBe(EXIT.denied);
    expect(otherGate.err).toContain("gate 'apply' is not the pending gate 'stop'");
    const otherPlan = await runMain('approve', id, '--approver', 'sre', '--gate', 'stop', '--plan', 'stop:a-plan-never-shown');
    expect(otherPlan.exitCode).toBe(EXIT.denied);
    expect(otherPlan.err).toContain(`plan hash stop:a-plan-never-shown does not match the pending plan ${planHash}`);
    expect((await pending())?.planHash).toBe(planHash);
    expect((await cli.env.coder.workspace(ws.id)).latest_build.id).toBe(before);

    const reject = await runMain('reject', id, '--approver', 'sre', '--gate', 'stop', '--plan', planHash);
    expect(reject.exitCode).toBe(EXIT.ok);
    expect(reject.out).toBe(`rejected 'stop' of ${id} as sre`);
    await expect(cli.env.t.client.workflow.getHandle(id).result()).rejects.toThrow();
    expect((await cli.env.coder.workspace(ws.id)).latest_build.id).toBe(before);
  }, 120_000);
});
