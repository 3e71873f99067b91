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
    expect(err.join('\n')).toMatch(/stop of .* rejected; nothing changed/);
  }, 120_000);
});
