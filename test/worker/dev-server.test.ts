import { createWsmigrateWorker } from '../../src/worker/create-worker';
import { ensureSearchAttributes } from '../../src/worker/ensure-search-attributes';
import { WsmigratePhase } from '../../src/contracts/search-attributes';
import { connectToTestServer, uniqueTaskQueue, type TemporalTestContext } from '../harness/temporal';

describe('the test harness dev server', () => {
  let t: TemporalTestContext;
  beforeAll(async () => {
    t = await connectToTestServer();
  });
  afterAll(async () => t?.close());

  it('runs a workflow through a real Worker, with activities and wsmigrate search attributes', async () => {
    await ensureSearchAttributes(t.connection, t.namespace);
    const taskQueue = uniqueTaskQueue('harness');
    const calls: string[] = [];
    const worker = await createWsmigrateWorker({
      connection: t.nativeConnection,
      namespace: t.namespace,
      taskQueue,
      workflowsPath: require.resolve('./fixtures/harness-workflows'),
      activities: {
        async greet(name: string) {
          calls.push(name);
          return `hello ${name}`;
        },
      },
    });
    const workflowId = `harness-${taskQueue}`;
    const result = await worker.runUntil(
      t.client.workflow.execute('harnessWorkflow', { taskQueue, workflowId, args: ['sre'] }),
    );
    expect(result.greeting).toBe('hello sre');
    expect(calls).toEqual(['sre']);
    const description = await t.client.workflow.getHandle(workflowId).describe();
    expect(description.typedSearchAttributes.get(WsmigratePhase)).toBe('greeted');
    // The history is real: started, tasks, activity scheduled/started/completed, completed.
    const history = await t.client.workflow.getHandle(workflowId).fetchHistory();
    expect(history.events?.some((e) => e.activityTaskCompletedEventAttributes)).toBe(true);
  });

  it('registers search attributes idempotently', async () => {
    await ensureSearchAttributes(t.connection, t.namespace);
    await ensureSearchAttributes(t.connection, t.namespace);
    const listed = await t.connection.operatorService.listSearchAttributes({ namespace: t.namespace });
    expect(Object.keys(listed.customAttributes ?? {})).toEqual(
      expect.arrayContaining(['WsmigrateTemplate', 'WsmigratePhase', 'WsmigratePendingApproval']),
    );
  });
});
