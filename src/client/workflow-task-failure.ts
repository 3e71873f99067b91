import type { Client } from '@temporalio/client';
import { joinSentences } from '../domain/sentences';

/** How a run's pending workflow task looks in `describe` (raw). */
export interface PendingWorkflowTask {
  attempt?: number | null;
}

/**
 * A worker that polls the run's task queue but fails every workflow task (it cannot decrypt the
 * run's payloads with its WSMIGRATE_ENCRYPTION_KEY, a bundle it cannot load, a nondeterminism
 * error) moves the run no further and answers no query, though it counts as a live poller. Temporal
 * keeps the first such failure in the history (later attempts only bump the pending task's attempt):
 * its message, read from the newest events, or undefined while workflow tasks succeed.
 */
export async function failingWorkflowTask(client: Client, workflowId: string, pending: PendingWorkflowTask | null | undefined): Promise<{ attempt: number; message: string } | undefined> {
  const attempt = pending?.attempt ?? 0;
  if (attempt < 2) return undefined;
  const res = await client.workflowService.getWorkflowExecutionHistoryReverse({ namespace: client.options.namespace, execution: { workflowId }, maximumPageSize: 50 });
  for (const e of res.history?.events ?? []) {
    if (e.workflowTaskCompletedEventAttributes) return undefined;
    const failed = e.workflowTaskFailedEventAttributes;
    if (failed) return { attempt, message: (failed.failure?.message ?? 'no message').slice(0, 600) };
  }
  return undefined;
}

/** The `waiting on:` line for it: what fails, and that fixing the worker resumes the run where it stopped. */
export function failingWorkflowTaskText(f: { attempt: number; message: string }, polling: readonly string[]): string {
  const who = polling.length ? ` (${polling.join(', ')})` : '';
  return joinSentences(
    `the worker${who} fails this run's workflow task (attempt ${f.attempt}), so the run moves no further and answers no status query: ${f.message}`,
    'Fix that worker (or start one that can run it); the run resumes where it stopped',
  );
}
