import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { PendingApproval } from '../domain/approval-policy';
import { migrationStatus, type MigrationStatus } from './migrations';
import { runOutcome, type RunOutcome } from './run-outcome';

/** What `wsmigrate status` shows: the run's own status where a worker answers, and what Temporal says of the run. */
export interface RunStatus {
  workflowId: string;
  /** The run's phase; `failed`, `cancelled`, `terminated` or `timed-out` once Temporal says it ended so. */
  phase: string;
  /** The phase it was in when it ended without completing. */
  lastPhase?: string;
  run: RunOutcome;
  stepsDone?: string[];
  verdict?: { verdict: string; summary: string };
  pendingApproval?: PendingApproval;
  error?: string;
  /** Everything the run's status query answered (absent when no worker answers for an ended run). */
  detail?: MigrationStatus;
}

/** A run's status: a failed run says failed and why, even when its last query still names the step it failed in. */
export async function runStatus(client: Client, workflowId: string): Promise<RunStatus> {
  let run: RunOutcome;
  try {
    run = await runOutcome(client, workflowId);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new Error(`no run with workflow id '${workflowId}' in this namespace; 'wsmigrate approvals' lists the waiting ones, 'temporal workflow list' all`);
    throw err;
  }
  const ended = run.state !== 'running' && run.state !== 'completed';
  // An ended run's query needs a worker; its outcome does not, so the reason is shown either way.
  const detail = await migrationStatus(client, workflowId).catch((err: unknown) => {
    if (ended) return undefined;
    throw err;
  });
  const phase = detail?.phase;
  return {
    workflowId,
    phase: ended ? run.state : (phase ?? run.state),
    ...(ended && phase && phase !== run.state ? { lastPhase: phase } : {}),
    run,
    ...(detail && 'stepsDone' in detail ? { stepsDone: detail.stepsDone } : {}),
    ...(detail && 'verdict' in detail && detail.verdict ? { verdict: detail.verdict } : {}),
    ...(detail?.pendingApproval && !ended ? { pendingApproval: detail.pendingApproval } : {}),
    ...(detail && 'error' in detail && detail.error ? { error: detail.error } : {}),
    ...(detail ? { detail } : {}),
  };
}

