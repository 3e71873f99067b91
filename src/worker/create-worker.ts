import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import { loadHclParser } from '../adapters/hcl-parse';
import { prebuiltWorkflowBundle } from './workflow-bundle';

export interface WsmigrateWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: object;
  dataConverter?: DataConverter;
  /** Defaults to the workflows of this package; tests may pass their own. */
  workflowsPath?: string;
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Tests only: workflow interceptor modules bundled with the workflows (so these are bundled at start, never prebuilt). */
  workflowInterceptorModules?: string[];
  /**
   * Tests only: how long a workflow task waits on this worker's sticky queue before any worker may take
   * it (Temporal's default, 10 s). A test that SIGKILLs a worker sets it short on that worker.
   */
  stickyQueueScheduleToStartTimeoutMs?: number;
  /** Activities at once; each awaited Coder build holds one, so this bounds builds awaited at once (default 200). */
  maxConcurrentActivityTaskExecutions?: number;
}

/** The worker's limits, for many concurrent migrations on one small machine. */
export const WORKER_TUNING = {
  // Waiting on a build is an idle HTTP poll, not CPU: enough slots for a fleet's whole window.
  maxConcurrentActivityTaskExecutions: 200,
  // Local activities: quick Coder reads and the CPU-bound rewrite and verify; a bound keeps a burst from starving the event loop.
  maxConcurrentLocalActivityExecutions: 50,
  // Keep every running migration's workflow in memory (sticky), so a step's result never replays its history.
  maxCachedWorkflows: 1000,
} as const;

export function defaultWorkflowsPath(): string {
  return require.resolve('../workflows');
}

/** Given code first; else the bundle the build wrote, when it is current; else bundle at start. */
function workflowCode(opts: WsmigrateWorkerOptions): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  if (opts.workflowBundle) return { workflowBundle: opts.workflowBundle };
  // A prebuilt bundle holds no interceptor of a test's: bundle the workflows with them.
  if (opts.workflowInterceptorModules) return { workflowsPath: opts.workflowsPath ?? defaultWorkflowsPath() };
  if (opts.workflowsPath) return { workflowsPath: opts.workflowsPath };
  const prebuilt = prebuiltWorkflowBundle();
  return prebuilt ? { workflowBundle: { codePath: prebuilt } } : { workflowsPath: defaultWorkflowsPath() };
}

export async function createWsmigrateWorker(opts: WsmigrateWorkerOptions): Promise<Worker> {
  // Paid once per process either way: at start (like the workflow bundle), not by the first migration's verify.
  // A failed load is not kept (loadHclParser); the first parse tries again and fails that step with the reason.
  loadHclParser().catch(() => undefined);
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    activities: opts.activities,
    dataConverter: opts.dataConverter,
    ...workflowCode(opts),
    ...(opts.workflowInterceptorModules && !opts.workflowBundle ? { interceptors: { workflowModules: opts.workflowInterceptorModules } } : {}),
    maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivityTaskExecutions ?? WORKER_TUNING.maxConcurrentActivityTaskExecutions,
    maxConcurrentLocalActivityExecutions: WORKER_TUNING.maxConcurrentLocalActivityExecutions,
    maxCachedWorkflows: WORKER_TUNING.maxCachedWorkflows,
    ...(opts.stickyQueueScheduleToStartTimeoutMs !== undefined ? { stickyQueueScheduleToStartTimeout: opts.stickyQueueScheduleToStartTimeoutMs } : {}),
    // No workflowFailureErrorTypes: a nondeterminism error (a deploy that changed the workflows without a
    // patch; Temporal's core refusing a command) fails the workflow task, which Temporal retries, and never
    // the run: a failed run skips its compensation and leaves the workspace as the step left it (stopped,
    // for option A). The run waits, `wsmigrate status` names the worker's error, and a worker that can
    // replay it (the previous version, or a fixed one) takes it on from where it stopped.
  });
}
