import { EXIT } from '../../src/cli/io';
import { runMain } from '../harness/cli';
import { ensureSearchAttributes } from '../../src/worker/ensure-search-attributes';
import { connectToTestServer, uniqueTaskQueue, type TemporalTestContext } from '../harness/temporal';

/**
 * `wsmigrate approve` (and `reject`) of a run at a gate whose worker is gone (restarted, its pod
 * killed, another WSMIGRATE_TASK_QUEUE): it used to hang 30 s on the pending-gate query and end with
 * Temporal's `Failed to query Workflow: 9 FAILED_PRECONDITION: no poller seen for task queue recently,
 * worker may be down`, while `wsmigrate status` of the same run said at once on whom it waits.
 */
describe('approve or reject while no worker polls the run', () => {
  let t: TemporalTestContext;
  beforeAll(async () => {
    t = await connectToTestServer();
    await ensureSearchAttributes(t.connection, t.namespace);
  });
  afterAll(async () => t?.close());

  it('says at once that the decision was not sent, which queue has no worker and what to start', async () => {
    const queue = uniqueTaskQueue('approve-no-worker');
    const id = `wsmigrate/k8s-dev/alice/${queue}`;
    // A run nobody works on: its input is never read, so any will do.
    await t.client.workflow.start('migrateWorkspace', { taskQueue: queue, workflowId: id, args: [{}] });
    try {
      for (const decision of ['approve', 'reject']) {
        const t0 = Date.now();
        const r = await runMain(decision, id, '--approver', 'alice');
        expect(Date.now() - t0).toBeLessThan(10_000);
        expect(r.exitCode).toBe(EXIT.failure);
        expect(r.err).toMatch(new RegExp(`${decision} not sent: ${id} takes no approval now: no worker is polling task queue '${queue}' \\(none has polled it recently\\).*start one with 'wsmigrate worker'.* Then ${decision} again`));
        expect(r.err).not.toMatch(/FAILED_PRECONDITION|DEADLINE_EXCEEDED/);
      }
    } finally {
      await t.client.workflow.getHandle(id).terminate('test over').catch(() => undefined);
    }
  }, 60_000);

  it("status of a run at a gate whose worker is gone says it waits on a worker and on a person, at which gate (Temporal keeps its name)", async () => {
    const queue = uniqueTaskQueue('gate-no-worker');
    const id = `wsmigrate/k8s-dev/alice/${queue}`;
    // As a run's gate leaves it: WsmigratePendingApproval names the gate while it is pending.
    await t.client.workflow.start('migrateWorkspace', { taskQueue: queue, workflowId: id, args: [{}], searchAttributes: { WsmigratePendingApproval: ['apply'] } });
    try {
      const t0 = Date.now();
      const s = await runMain('status', id);
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(s.exitCode).toBe(EXIT.ok);
      expect(s.out).toMatch(new RegExp(`^${id}: awaiting-approval\n  waiting on: no worker is polling task queue '${queue}'.*\n  waiting on: and on a person: it waits at the 'apply' gate \\(search attribute WsmigratePendingApproval\\); once a worker runs, 'wsmigrate status ${id}' names who may approve, and 'wsmigrate approve ${id} --approver <you>' decides$`));
    } finally {
      await t.client.workflow.getHandle(id).terminate('test over').catch(() => undefined);
    }
  }, 60_000);
});
