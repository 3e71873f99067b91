import { registerApprovalCommands } from '../../src/cli/commands/approvals';
import { registerFleetCommands } from '../../src/cli/commands/fleet';
import { runCommand } from '../harness/cli';
import { childrenStartedAfterUpdate } from '../harness/history';
import { waitFor } from '../harness/wait';
import { cliAgainstWorker } from '../harness/cli-env';

describe('wsmigrate fleet', () => {
  const cli = cliAgainstWorker(4);

  const fleet = (...args: string[]) => runCommand(registerFleetCommands, 'fleet', ...args);
  const status = async (id: string) => JSON.parse((await fleet('status', id, '--json')).out) as { phase: string; progress?: { counts: Record<string, number>; pendingApproval?: { gateId: string } } };

  it('starts, shows status, pauses and resumes, is approved with `approve`, and --wait prints the summary table', async () => {
    const started = await fleet('start', '--org', 'coder', '--template', cli.env.sim.template.name, '--version', cli.version, '--canary', '1', '--concurrency', '3', '--approver', 'sre', '--no-archive', '--json');
    expect(started.exitCode).toBe(0);
    const { workflowId } = JSON.parse(started.out) as { workflowId: string };
    expect(workflowId).toBe(`wsmigrate-fleet/coder/${cli.env.sim.template.name}`);

    await waitFor(async () => (await status(workflowId)).progress?.pendingApproval?.gateId === 'fleet-continue', 90_000);
    expect((await status(workflowId)).phase).toBe('awaiting-approval');
    const atGate = (await fleet('status', workflowId)).out;
    expect(atGate).toMatch(/waiting for approval of 'fleet-continue'.*Canary: 1 of 1 ok/s);
    // On whom it waits: the run's approver list, not only a command with `<you>` in it.
    expect(atGate).toMatch(/^ {4}approvers: sre$/m);

    const paused = await fleet('pause', workflowId, '--by', 'sre', '--reason', 'lunch');
    expect(paused.out).toBe(`paused ${workflowId} as sre`);
    // Paused at the gate: the phase still says awaiting-approval, so status must say an approval alone will not go on.
    expect((await fleet('status', workflowId)).out).toMatch(
      new RegExp(`^ {2}paused by sre \\(lunch\\) since \\S+: it still waits at 'fleet-continue'; once that is approved, no new migration starts until it is resumed: wsmigrate fleet resume ${workflowId} --by <you>$`, 'm'),
    );
    const refused = await fleet('resume', workflowId, '--by', 'mallory');
    expect(refused.exitCode).toBe(3);
    expect(refused.err).toMatch(/'mallory' may not resume/);
    expect(refused.err).not.toMatch(/login name/);
    // No --by and no WSMIGRATE_APPROVER: the login name goes, and its refusal says how to name an approver.
    delete process.env.WSMIGRATE_APPROVER;
    const byLogin = await fleet('resume', workflowId);
    expect(byLogin.exitCode).toBe(3);
    expect(byLogin.err).toMatch(/may not resume this fleet \(allowed: sre\); '[^']+' is your login name, used because neither --by nor WSMIGRATE_APPROVER was given: pass --by <approver>$/);

    const approved = await runCommand(registerApprovalCommands, 'approve', workflowId, '--approver', 'sre');
    expect(approved.out).toBe(`approved 'fleet-continue' of ${workflowId} as sre`);
    // Approved but paused: nothing new starts until resume.
    await waitFor(async () => (await status(workflowId)).phase === 'paused');
    // Not a sleep: once the fleet has handled the approval, it has started no migration on it.
    const handle = cli.env.t.client.workflow.getHandle(workflowId);
    await waitFor(async () => (await childrenStartedAfterUpdate(handle, 'approve')) !== undefined, 60_000);
    expect(await childrenStartedAfterUpdate(handle, 'approve')).toEqual([]);
    expect((await status(workflowId)).progress?.counts.migrated).toBe(1);
    expect((await fleet('resume', workflowId, '--by', 'sre')).exitCode).toBe(0);

    const waited = await fleet('status', workflowId, '--wait');
    expect(waited.exitCode).toBe(0);
    expect(waited.out).toMatch(/^(running|paused) \(rolling\): \d+ migrated/m); // plain lines when not a terminal
    expect(waited.out).toMatch(/fleet done\n/);
    expect(waited.out).toMatch(/^migrated\s+4$/m);
    expect(waited.out).toMatch(/^failed\s+0$/m);
    expect(waited.out).toMatch(/^PVC uids kept\s+4$/m); // one home volume each
    expect((await status(workflowId)).phase).toBe('done');
    expect(cli.env.sim.cluster.pvcLosses()).toEqual([]);
  }, 180_000);
});
