import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';

export interface WsmigrateWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: object;
  dataConverter?: DataConverter;
  /** Defaults to the workflows of this package; tests may pass their own. */
  workflowsPath?: string;
  workflowBundle?: WorkerOptions['workflowBundle'];
  maxConcurrentActivityTaskExecutions?: number;
}

export function defaultWorkflowsPath(): string {
  return require.resolve('../workflows');
}

export async function createWsmigrateWorker(opts: WsmigrateWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    activities: opts.activities,
    dataConverter: opts.dataConverter,
    ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath: opts.workflowsPath ?? defaultWorkflowsPath() }),
    maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivityTaskExecutions ?? 20,
    // A nondeterminism error fails the workflow loudly instead of retrying the task forever.
    workflowFailureErrorTypes: { '*': ['NondeterminismError'] },
  });
}
