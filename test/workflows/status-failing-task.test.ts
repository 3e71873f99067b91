import { randomBytes } from 'node:crypto';
import type { WsmigrateActivities } from '../../src/activities';
import { workerDataConverter } from '../../src/adapters/temporal/data-converter';
import { decide } from '../../src/client/approvals';
import { startWorkspaceMigration } from '../../src/client/migrations';
import { runStatus } from '../../src/client/run-status';
import { createWsmigrateWorker } from '../../src/worker/create-worker';
import { waitFor } from '../harness/wait';
import { sharedWorkflowBundle } from '../harness/workflow-bundles';
import { createMigrationEnv, type MigrationEnv } from './fixtures/migration-env';

jest.setTimeout(180_000);

/**
 * A worker restarted with another WSMIGRATE_ENCRYPTION_KEY polls the task queue but fails every
 * workflow task of a run the CLI started with the old key. `wsmigrate status` must say that (the
 * worker's own error, naming both key ids), not "no worker answered … start one", and at once
 * instead of after a query's 30 s timeout.
 */
describe('status of a run whose worker fails its workflow tasks (another encryption key)', () => {
  let env: MigrationEnv;
  let stopWorker: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    env = await createMigrationEnv({ workspaces: 2 }, { encryptionKey: randomBytes(32) });
    const bundlePath = await sharedWorkflowBundle();
    const worker = await createWsmigrateWorker({
      ...(bundlePath ? { workflowBundle: { codePath: bundlePath } } : {}),
      connection: env.t.nativeConnection,
      namespace: env.t.namespace,
      taskQueue: env.taskQueue,
      // The converter runWorker gives a worker: its decrypt error names the worker, not "this process".
      dataConverter: workerDataConverter(randomBytes(32)),
      activities: {} as WsmigrateActivities,
    });
    const running = worker.run();
    stopWorker = async () => {
      worker.shutdown();
      await running;
    };
  });
  afterAll(async () => {
    await stopWorker?.();
    await env?.close();
  });

  it("names the worker's failure and what to do", async () => {
    const ws = env.sim.workspaces()[0];
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: env.sim.template.activeVersionId, approval: { policy: 'none' } },
      { taskQueue: env.taskQueue },
    );
    await waitFor(async () => ((await handle.describe()).raw.pendingWorkflowTask?.attempt ?? 0) >= 2, 60_000);
    const started = Date.now();
    const s = await runStatus(env.t.client, handle.workflowId);
    expect(Date.now() - started).toBeLessThan(10_000);
    const text = (s.waitingOn ?? []).join('\n');
    expect(text).toMatch(/fails this run's workflow task \(attempt \d+\), so the run moves no further/);
    expect(text).toMatch(/cannot decrypt a Temporal payload encrypted with key id [0-9a-f]+: the worker has key id [0-9a-f]+\. Give the client and the worker the same WSMIGRATE_ENCRYPTION_KEY/);
    expect(text).not.toContain('this process');
    expect(text).not.toContain("no worker answered");
    // An approval meanwhile says why it cannot be taken and where the worker's error is.
    await expect(decide(env.t.client, handle.workflowId, 'approve', { approver: 'sre' })).rejects.toThrow(
      `approve not sent: ${handle.workflowId} takes no approval now, because its worker fails the run's workflow task`,
    );
    // Temporal retries it on its own; status says so and roughly when (attempt 2's timeout: 10 s after it started).
    expect(text).toMatch(/Temporal retries it by itself: attempt \d+ started at \S+ and the next is given to a worker (at about \S+ \(in about \d+s\)|any moment now)/);
    expect(text).toContain("Do not 'temporal workflow reset' to hurry it");
    await handle.terminate('test over');
  });

  it('after the key is fixed, status keeps the recorded error but says when the next attempt comes, and the run moves on then, not sooner', async () => {
    const ws = env.sim.workspaces()[1];
    const handle = await startWorkspaceMigration(
      env.t.client,
      { owner: ws.owner, workspace: ws.name, template: env.sim.template.name, targetVersionId: env.sim.template.activeVersionId, approval: { policy: 'all', approvers: ['sre'] } },
      { taskQueue: env.taskQueue },
    );
    // Past the third attempt the server adds a backoff (5 s at attempt 4) to each attempt's timeout.
    await waitFor(async () => ((await handle.describe()).raw.pendingWorkflowTask?.attempt ?? 0) >= 4, 90_000);
    const s = await runStatus(env.t.client, handle.workflowId);
    const text = (s.waitingOn ?? []).join('\n');
    // The worker is fixed: the wrong-key one stops, one with the run's key starts; status still shows the recorded error.
    await stopWorker?.();
    stopWorker = undefined;
    await env.startWorker();
    expect(((await runStatus(env.t.client, handle.workflowId)).waitingOn ?? []).join('\n')).toContain('cannot decrypt a Temporal payload');
    expect(text).toMatch(/the error Temporal recorded at \S+; it keeps only the first failed attempt's, so it shows until an attempt succeeds\): cannot decrypt a Temporal payload/);
    const due = /attempt (\d+) started at (\S+) and the next is given to a worker at about (\S+) \(in about/.exec(text);
    expect(due).not.toBeNull();
    const [attempt, startedAt, dueAt] = [Number(due![1]), Date.parse(due![2]), Date.parse(due![3])];
    expect(attempt).toBeGreaterThanOrEqual(4);
    // The fixed worker does not hurry it: the run moves on at the attempt status named.
    await waitFor(async () => (await handle.describe()).raw.pendingWorkflowTask == null || ((await handle.describe()).raw.pendingWorkflowTask?.attempt ?? 0) === 1, 120_000);
    const movedAt = Date.now();
    const backoff = 5_000 * 2 ** (attempt - 4);
    expect(movedAt).toBeGreaterThanOrEqual(dueAt - backoff / 5 - 1_000);
    expect(movedAt).toBeLessThanOrEqual(dueAt + 5_000);
    expect(dueAt - startedAt).toBe(10_000 + backoff);
    // Once an attempt succeeds, status shows the run again, not the old error.
    await waitFor(async () => !((await runStatus(env.t.client, handle.workflowId)).waitingOn ?? []).join('\n').includes('cannot decrypt'), 30_000);
    if ((await handle.describe()).status.name === 'RUNNING') await handle.terminate('test over');
  });
});
