import type { Client } from '@temporalio/client';
import { failureText, failureTypeOf } from './failure-text';

/** How Temporal says a run stands, in the CLI's words. */
export type RunState = 'running' | 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed-out';

export interface RunOutcome {
  state: RunState;
  /** Why a run that did not complete ended: its failure's message, every cause and detail. */
  reason?: string;
  /** The failure's type (`WsmigrateRefused`, …) when the run failed with one. */
  failureType?: string;
}

const STATES: Record<string, RunState> = {
  RUNNING: 'running',
  CONTINUED_AS_NEW: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed-out',
};

/** Temporal's status of a run and, when it ended without completing, the reason it gives (read from its close event). */
export async function runOutcome(client: Client, workflowId: string): Promise<RunOutcome> {
  const handle = client.workflow.getHandle(workflowId);
  const state = STATES[(await handle.describe()).status.name] ?? 'failed';
  if (state === 'running' || state === 'completed') return { state };
  try {
    await handle.result();
    return { state };
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause ?? err;
    const failureType = failureTypeOf(cause);
    return { state, reason: failureText(cause), ...(failureType ? { failureType } : {}) };
  }
}
