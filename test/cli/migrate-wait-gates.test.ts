import { main } from '../../src/cli/main';
import { EXIT } from '../../src/cli/io';
import { runMain } from '../harness/cli';
import { cliAgainstWorker } from '../harness/cli-env';
import { waitFor } from '../harness/wait';

/** `migrate … --wait` at a gate: an SRE sees on whom it waits and what ends the wait, not a silent terminal. */
describe('migrate workspace --wait says each gate as it opens', () => {
  const cli = cliAgainstWorker(1);

  it('a dry run offers no approve command: it asks no one and changes nothing', async () => {
    const ws = cli.env.sim.workspaces()[0];
    const r = await runMain('migrate', 'workspace', `${ws.owner}/${ws.name}`, '--template', cli.env.sim.template.name, '--version', cli.version, '--approver', 'sre', '--dry-run', '--wait');
    expect(r.exitCode).toBe(EXIT.ok);
    expect(r.out).toMatch(/^started wsmigrate\/\S+\n  status: {2}wsmigrate status \S+\n  dry run: nothing to approve, nothing changes\n/);
    expect(r.out).not.toMatch(/wsmigrate approve/);
    expect(JSON.parse(r.out.slice(r.out.indexOf('{'))) as { outcome: string }).toMatchObject({ outcome: 'dry-run' });
  }, 120_000);

  it("prints the gate, its approvers and the exact approve command once, then ends with the person's rejection (exit 3)", async () => {
    const ws = cli.env.sim.workspaces()[0];
    const id = `wsmigrate/${cli.env.sim.template.name}/${ws.owner}/${ws.name}`;
    const out: string[] = [];
    const err: string[] = [];
    const running = main(['migrate', 'workspace', `${ws.owner}/${ws.name}`, '--template', cli.env.sim.template.name, '--version', cli.version, '--approval', 'all', '--approver', 'sre', '--wait'], {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
    });
    await waitFor(() => out.some((l) => l.startsWith("waiting for approval of 'stop'")), 90_000);
    const text = out.join('\n');
    expect(text).toMatch(new RegExp(`^waiting for approval of 'stop' since \\S+: Stop ${ws.owner}/${ws.name} before migrating \\(option A\\)\\n  approvers: sre\\n  wsmigrate approve ${id} --approver <you> --gate stop --plan stop:\\S+   \\(or: wsmigrate reject ${id} --approver <you>\\)$`, 'm'));

    expect((await runMain('reject', id, '--approver', 'sre')).exitCode).toBe(EXIT.ok);
    expect(await running).toBe(EXIT.denied);
    expect(out.filter((l) => l.startsWith('waiting for approval of')).length).toBe(1);
    expect(err.join('\n')).toContain(`${id} failed: ${ws.owner}/${ws.name}: rejected by sre at the stop gate: nothing changed: ${ws.owner}/${ws.name} was not stopped`);
    // A person's no is a decision, not "failed (during preflight)".
    const status = (await runMain('status', id)).out;
    expect(status).toMatch(new RegExp(`^${id}: declined\n  reason: ${ws.owner}/${ws.name}: rejected by sre at the stop gate: nothing changed`));
    expect(status).not.toMatch(/failed|during preflight/);
  }, 120_000);
});

/**
 * One rule for every gate a person (or nobody, until its time-out) answers no: the run ends
 * WsmigrateRejected and `--wait` exits 3, whether nothing had changed yet (stop) or a restore undid it (apply).
 */
describe('migrate workspace --wait after a gate timed out', () => {
  const cli = cliAgainstWorker(2);
  const migrate = (i: number, ...more: string[]) => {
    const ws = cli.env.sim.workspaces()[i];
    return runMain('migrate', 'workspace', `${ws.owner}/${ws.name}`, '--template', cli.env.sim.template.name, '--version', cli.version, '--approver', 'sre', '--approval-timeout', '1s', '--wait', ...more);
  };

  it('at the stop gate: exit 3, saying how long it waited and that nothing changed', async () => {
    const ws = cli.env.sim.workspaces()[0];
    const r = await migrate(0, '--approval', 'all');
    expect(r.exitCode).toBe(EXIT.denied);
    expect(r.err).toMatch(new RegExp(`: ${ws.owner}/${ws.name}: the stop gate timed out after [23]s with no decision \\(escalated once\\): nothing changed: ${ws.owner}/${ws.name} was not stopped`));
    expect(r.err).not.toContain('timed-out');
  }, 120_000);

  it('at the apply gate: exit 3 too (it was 1), once the restore put it back as it was', async () => {
    const ws = cli.env.sim.workspaces()[1];
    const id = `wsmigrate/${cli.env.sim.template.name}/${ws.owner}/${ws.name}`;
    const r = await migrate(1, '--approval', 'destructive');
    expect(r.exitCode).toBe(EXIT.denied);
    expect(r.err).toMatch(/: the apply gate timed out after [23]s with no decision \(escalated once\): nothing built on \S+; restored: state and transition as before/);
    expect((await runMain('status', id)).out).toMatch(new RegExp(`^${id}: declined, restored\n  reason: .*the apply gate timed out after`));
    expect((await cli.env.coder.workspace(ws.id)).latest_build).toMatchObject({ transition: 'start', job: { status: 'succeeded' } });
  }, 120_000);
});
