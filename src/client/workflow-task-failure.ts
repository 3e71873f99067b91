import type { Client } from '@temporalio/client';
import { joinSentences } from '../domain/sentences';
import { nextWorkflowTaskAttempt, workflowTaskRetryText, type NextAttempt, type PendingTaskTimes } from './workflow-task-retry';

/** How a run's pending workflow task looks in `describe` (raw). */
export type PendingWorkflowTask = PendingTaskTimes;

type Duration = { seconds?: { toNumber(): number } | number | string | null; nanos?: number | null } | null | undefined;

/** The run's workflow task timeout (describe's executionConfig.defaultWorkflowTaskTimeout), Temporal's 10 s when not said. */
function durationMs(d: Duration): number {
  if (!d || d.seconds === null || d.seconds === undefined) return 10_000;
  const s = typeof d.seconds === 'object' ? d.seconds.toNumber() : Number(d.seconds);
  return s * 1000 + Math.floor((d.nanos ?? 0) / 1e6);
}

export interface FailingWorkflowTask {
  attempt: number;
  message: string;
  /** When the recorded failure happened: Temporal keeps only the first failed attempt's error. */
  failedAt?: string;
  /** When Temporal gives the task to a worker again, when describe tells. */
  next?: NextAttempt;
}

/**
 * A worker that polls the run's task queue but fails every workflow task (it cannot decrypt the
 * run's payloads with its WSMIGRATE_ENCRYPTION_KEY, a bundle it cannot load, a nondeterminism
 * error) moves the run no further and answers no query, though it counts as a live poller. Temporal
 * keeps the first such failure in the history (later attempts only bump the pending task's attempt):
 * its message, read from the newest events, or undefined while workflow tasks succeed.
 */
export async function failingWorkflowTask(
  client: Client,
  workflowId: string,
  pending: PendingWorkflowTask | null | undefined,
  workflowTaskTimeout?: Duration,
): Promise<FailingWorkflowTask | undefined> {
  const attempt = pending?.attempt ?? 0;
  if (attempt < 2) return undefined;
  const res = await client.workflowService.getWorkflowExecutionHistoryReverse({ namespace: client.options.namespace, execution: { workflowId }, maximumPageSize: 50 });
  for (const e of res.history?.events ?? []) {
    if (e.workflowTaskCompletedEventAttributes) return undefined;
    const failed = e.workflowTaskFailedEventAttributes;
    if (failed) {
      const seconds = e.eventTime?.seconds;
      const failedAt = seconds !== null && seconds !== undefined ? new Date(Number(seconds) * 1000).toISOString() : undefined;
      const next = nextWorkflowTaskAttempt(pending, durationMs(workflowTaskTimeout));
      return { attempt, message: (failed.failure?.message ?? 'no message').slice(0, 600), ...(failedAt ? { failedAt } : {}), ...(next ? { next } : {}) };
    }
  }
  return undefined;
}

/** The `waiting on:` line for it: what fails, that fixing the worker resumes the run, and when Temporal tries again. */
export function failingWorkflowTaskText(f: FailingWorkflowTask, polling: readonly string[], now = Date.now()): string {
  const who = polling.length ? ` (${polling.join(', ')})` : '';
  const recorded = f.failedAt ? ` (the error Temporal recorded at ${f.failedAt}; it keeps only the first failed attempt's, so it shows until an attempt succeeds)` : '';
  return joinSentences(
    `the worker${who} fails this run's workflow task (attempt ${f.attempt}), so the run moves no further and answers no status query${recorded}: ${f.message}`,
    'Fix that worker (or start one that can run it); the run resumes where it stopped',
    workflowTaskRetryText(f.next, now),
  );
}
