import { EXIT } from '../../src/cli/io';
import { waitForFleet } from '../../src/cli/commands/fleet';
import { waitForOrganization } from '../../src/cli/commands/organization-run';
import { runMain } from '../harness/cli';
import { cliAgainstWorker } from '../harness/cli-env';
import { uniqueTaskQueue } from '../harness/temporal';
import { exclusiveFile, ORG_CODER_LOCK } from '../harness/exclusive';

// The organization run wsmigrate-org/coder and schedules of organization coder: one such file at a time.
exclusiveFile(ORG_CODER_LOCK);

/**
 * `fleet status` of a running fleet or organization run while no worker answers it (the worker
 * restarted, its pod was killed, or the shell's WSMIGRATE_TASK_QUEUE is not the worker's). It used to
 * hang 30 s and end with Temporal's `Failed to query Workflow: 9 FAILED_PRECONDITION: no poller seen
 * for task queue recently, worker may be down`, exit 1, and `--wait` (of `fleet start` too) died the
 * same way while the run was fine. `wsmigrate status` already said on whom the run waits.
 */
describe('fleet status while no worker answers the run', () => {
  const cli = cliAgainstWorker(2);
  const io = () => {
    const out: string[] = [];
    return { out, io: { out: (t: string) => out.push(t), err: (t: string) => out.push(t) } };
  };

  it('a fleet: says at once that no worker polls its queue and what to start, exit 0; --wait keeps waiting instead of failing', async () => {
    const queue = uniqueTaskQueue('fleet-no-worker');
    process.env.WSMIGRATE_TASK_QUEUE = queue;
    const id = `wsmigrate-fleet/coder/${cli.env.sim.template.name}`;
    try {
      const started = await runMain('fleet', 'start', '--org', 'coder', '--template', cli.env.sim.template.name, '--version', cli.version, '--approval', 'none', '--canary', '0');
      expect(started.exitCode).toBe(EXIT.ok);
      const t0 = Date.now();
      const s = await runMain('fleet', 'status', id);
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(s.exitCode).toBe(EXIT.ok);
      expect(s.out).toMatch(new RegExp(`^${id}: running\\n  waiting on: no worker is polling task queue '${queue}' \\(none has polled it recently\\), so the run does not move .*start one with 'wsmigrate worker'`));
      expect(s.out + s.err).not.toMatch(/FAILED_PRECONDITION|DEADLINE_EXCEEDED/);
      const json = JSON.parse((await runMain('fleet', 'status', id, '--json')).out) as { unanswered: boolean; waitingOn: { kind: string }[] };
      expect(json).toMatchObject({ unanswered: true, waitingOn: [{ kind: 'no-worker' }] });

      // --wait: still waiting after a few polls, the reason said once; it ends only when the run does.
      const w = io();
      let settled = false;
      const waiting = waitForFleet(cli.env.t.client, w.io, id, { json: false, pollMs: 200, tty: false }).then(
        (code) => ((settled = true), code),
        (err: unknown) => ((settled = true), err as Error),
      );
      await new Promise((r) => setTimeout(r, 3000));
      expect(settled).toBe(false);
      expect(w.out.filter((l) => /no worker is polling task queue/.test(l))).toHaveLength(1);
      await cli.env.t.client.workflow.getHandle(id).terminate('test: no worker on its queue');
      const ended = await waiting;
      expect(ended).toBeInstanceOf(Error);
      expect((ended as Error).message).toMatch(/was terminated/);
    } finally {
      process.env.WSMIGRATE_TASK_QUEUE = cli.env.taskQueue;
      await cli.env.t.client.workflow.getHandle(id).terminate('test: cleanup').catch(() => undefined);
    }
  }, 120_000);

  it('an organization run: the same, for fleet status and its --wait', async () => {
    const queue = uniqueTaskQueue('org-no-worker');
    process.env.WSMIGRATE_TASK_QUEUE = queue;
    const id = 'wsmigrate-org/coder';
    try {
      // The fleet the test before terminated may still show as running in visibility for a moment.
      let started = await runMain('fleet', 'start', '--org', 'coder', '--all-templates', '--approval', 'none', '--canary', '0');
      for (let i = 0; i < 20 && started.exitCode !== EXIT.ok; i++) {
        await new Promise((r) => setTimeout(r, 500));
        started = await runMain('fleet', 'start', '--org', 'coder', '--all-templates', '--approval', 'none', '--canary', '0');
      }
      expect(started.exitCode).toBe(EXIT.ok);
      // --approval none: no gate to point at (the hint used to say the canaries wait at one).
      expect(started.out).toContain(`--approval none: no gate waits; the canaries of every template are told, then the rest start (wsmigrate fleet status ${id})`);
      expect(started.out).not.toMatch(/wait at one gate/);
      const t0 = Date.now();
      const s = await runMain('fleet', 'status', id);
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(s.exitCode).toBe(EXIT.ok);
      expect(s.out).toMatch(new RegExp(`^${id}: running\\n  waiting on: no worker is polling task queue '${queue}'`));
      expect(s.out + s.err).not.toMatch(/FAILED_PRECONDITION|DEADLINE_EXCEEDED/);

      const w = io();
      let settled = false;
      const waiting = waitForOrganization(cli.env.t.client, w.io, id, false, 200).finally(() => (settled = true));
      await new Promise((r) => setTimeout(r, 3000));
      expect(settled).toBe(false);
      expect(w.out.filter((l) => /no worker is polling task queue/.test(l))).toHaveLength(1);
      await cli.env.t.client.workflow.getHandle(id).terminate('test: no worker on its queue');
      expect(await waiting).not.toBe(EXIT.ok);
    } finally {
      process.env.WSMIGRATE_TASK_QUEUE = cli.env.taskQueue;
      await cli.env.t.client.workflow.getHandle(id).terminate('test: cleanup').catch(() => undefined);
    }
  }, 120_000);
});
