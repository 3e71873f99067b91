import { EXIT } from '../../src/cli/io';
import { runMain } from '../harness/cli';
import { cliAgainstWorker } from '../harness/cli-env';
import { uniqueTaskQueue } from '../harness/temporal';

/**
 * `wsmigrate status` of a running migration says on whom it waits when that is no gate: no worker
 * on its task queue (the query used to hang 30 s and end with `4 DEADLINE_EXCEEDED: query timed
 * out before a worker could process it`, exit 1) (it also lists a step Temporal is
 * retrying, and a started step whose worker went quiet, from the run's pending activities).
 */
describe('status of a running migration that waits on no person', () => {
  const cli = cliAgainstWorker(2);

  it('no worker on its task queue: says so at once, naming the queue and what to start, exit 0', async () => {
    const ws = cli.env.sim.workspaces()[0];
    const id = `wsmigrate/${cli.env.sim.template.name}/${ws.owner}/${ws.name}`;
    // An SRE whose WSMIGRATE_TASK_QUEUE is not the worker's: the run is accepted and nothing runs it.
    const queue = uniqueTaskQueue('no-worker');
    process.env.WSMIGRATE_TASK_QUEUE = queue;
    try {
      const started = await runMain('migrate', 'workspace', `${ws.owner}/${ws.name}`, '--template', cli.env.sim.template.name, '--version', cli.version, '--approval', 'none');
      expect(started.exitCode).toBe(EXIT.ok);
      const t0 = Date.now();
      const s = await runMain('status', id);
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(s.exitCode).toBe(EXIT.ok);
      expect(s.out).toMatch(new RegExp(`^${id}: running\\n  waiting on: no worker is polling task queue '${queue}' \\(none has polled it recently\\), so the run does not move .*start one with 'wsmigrate worker' \\(same TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and WSMIGRATE_TASK_QUEUE\\); the run resumes where it stopped`));
      expect(s.out).not.toMatch(/DEADLINE_EXCEEDED/);
      const json = JSON.parse((await runMain('status', id, '--json')).out) as { waitingOn: string[] };
      expect(json.waitingOn[0]).toMatch(/^no worker is polling task queue/);
    } finally {
      process.env.WSMIGRATE_TASK_QUEUE = cli.env.taskQueue;
      await cli.env.t.client.workflow.getHandle(id).terminate('test: no worker on its queue');
    }
  }, 120_000);
});
