import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { joinSentences } from '../domain/sentences';
import type { ApprovalChannel, PendingApproval } from '../domain/approval-policy';
import { approvalSignal, approveUpdate, pendingApprovalQuery, rejectUpdate, type ApprovalReceipt, type DecisionPayload } from '../contracts/approval';
import { WsmigratePendingApproval } from '../contracts/search-attributes';
import { failingWorkflowTask } from './workflow-task-failure';
import { noWorkerText, taskQueueWorkers } from './run-waits';
import { RefusedError } from './refused-error';
import { runStatus, type RunStatus } from './run-status';

export type { RunStatus };

/** The gate a workflow (workspace, template or fleet: any that uses ApprovalGates) is waiting on, or undefined. */
export async function pendingApproval(client: Client, workflowId: string): Promise<PendingApproval | undefined> {
  return (await client.workflow.getHandle(workflowId).query(pendingApprovalQuery)) ?? undefined;
}

export interface DecisionOptions {
  approver: string;
  comment?: string;
  /** How the decision arrived (recorded in the receipt); `cli` by default. */
  channel?: ApprovalChannel;
  slackUserId?: string;
  /** Approve only this gate / plan; by default whatever is pending now (read from the status query). */
  gateId?: string;
  planHash?: string;
}

/** Approves or rejects the pending gate through the validated update; the server answers at once. */
export async function decide(client: Client, workflowId: string, decision: 'approve' | 'reject', opts: DecisionOptions): Promise<ApprovalReceipt> {
  const described = await client.workflow
    .getHandle(workflowId)
    .describe()
    .catch(() => undefined);
  // A running run with no worker on its task queue answers no query and takes no update: the query
  // would hang 30 s and end in Temporal's FAILED_PRECONDITION. Say on whom it waits, at once.
  if (described?.status.name === 'RUNNING') {
    const workers = await taskQueueWorkers(client, described.taskQueue).catch(() => undefined);
    if (workers && workers.live.length === 0) {
      throw new Error(joinSentences(`${decision} not sent: ${workflowId} takes no approval now: ${noWorkerText(workers)}`, `Then ${decision} again`));
    }
  }
  // A run whose worker fails its workflow tasks answers no query and takes no update (they time out or are refused).
  const failing = described ? await failingWorkflowTask(client, workflowId, described.raw.pendingWorkflowTask).catch(() => undefined) : undefined;
  if (failing) {
    throw new Error(
      joinSentences(
        `${decision} not sent: ${workflowId} takes no approval now, because its worker fails the run's workflow task (attempt ${failing.attempt}): ${failing.message}`,
        `Fix the worker, then ${decision} again once Temporal has retried the task ('wsmigrate status ${workflowId}' says when it moves again)`,
      ),
    );
  }
  return decideOnce(client, workflowId, decision, opts);
}

async function decideOnce(client: Client, workflowId: string, decision: 'approve' | 'reject', opts: DecisionOptions): Promise<ApprovalReceipt> {
  let pending: PendingApproval | undefined;
  if (!opts.gateId || !opts.planHash) {
    pending = await pendingApproval(client, workflowId);
    // Said no to, like an approval of a finished run: README's exit 3, not a failure of the tool.
    if (!pending) throw new RefusedError(`${decision} refused: ${workflowId} is not waiting for an approval now (already decided, timed out, ended, or not at a gate yet); see 'wsmigrate status ${workflowId}'`);
  }
  const payload: DecisionPayload = {
    gateId: opts.gateId ?? (pending as PendingApproval).gateId,
    planHash: opts.planHash ?? (pending as PendingApproval).planHash,
    approver: opts.approver,
    channel: opts.channel ?? 'cli',
    ...(opts.slackUserId ? { slackUserId: opts.slackUserId } : {}),
    ...(opts.comment ? { comment: opts.comment } : {}),
  };
  try {
    return await client.workflow.getHandle(workflowId).executeUpdate(decision === 'approve' ? approveUpdate : rejectUpdate, { args: [payload] });
  } catch (err) {
    // The validator's reason ("'mallory' is not an approver …") is in the cause; say it plainly.
    if (err instanceof WorkflowUpdateFailedError && err.cause) throw new RefusedError(`${decision} refused: ${err.cause.message}`);
    if (/already completed/i.test((err as Error).message)) {
      throw new RefusedError(`${decision} refused: ${workflowId} has already finished, so nothing is waiting for an approval; see 'wsmigrate status ${workflowId}'`);
    }
    throw err;
  }
}

/** The same decision as a signal (no answer): what `temporal workflow signal --name approval` sends. */
export async function signalDecision(client: Client, workflowId: string, decision: 'approve' | 'reject', opts: Required<Pick<DecisionOptions, 'gateId' | 'planHash' | 'approver'>> & { comment?: string }): Promise<void> {
  await client.workflow.getHandle(workflowId).signal(approvalSignal, { ...opts, decision });
}

export interface WaitingMigration {
  workflowId: string;
  pending: PendingApproval;
}

/** A run whose search attribute says it waits at a gate, but no worker answered its query in time. */
export interface SilentWaitingRun {
  workflowId: string;
  /** The gate its search attribute names (it lags the run by a moment). */
  gateId?: string;
}

export interface WaitingRuns {
  waiting: WaitingMigration[];
  /** Runs at a gate that no worker answered for: their worker is down, or polls another task queue. */
  silent: SilentWaitingRun[];
}

/** How long one run's query may take before the listing names it silent instead of waiting on it. */
export const WAITING_QUERY_ANSWER_MS = 5_000;
const QUERIES_AT_ONCE = 16;

/**
 * Every running migration that waits for a human now (from the WsmigratePendingApproval search
 * attribute, then each run's own query, the truth). The queries run a few at once, each given
 * `answerMs`: a run whose worker is gone answers no query, and one such run must not hold up the list.
 */
export async function waitingForApproval(client: Client, limit = 50, answerMs = WAITING_QUERY_ANSWER_MS): Promise<WaitingRuns> {
  const query = `ExecutionStatus = 'Running' AND ${WsmigratePendingApproval.name} IS NOT NULL AND ${WsmigratePendingApproval.name} != 'none'`;
  const listed: SilentWaitingRun[] = [];
  try {
    for await (const wf of client.workflow.list({ query })) {
      const gateId = wf.typedSearchAttributes.get(WsmigratePendingApproval);
      listed.push({ workflowId: wf.workflowId, ...(gateId ? { gateId } : {}) });
      if (listed.length >= limit) break;
    }
  } catch (err) {
    const cause = (err as { cause?: { details?: string; message?: string } }).cause;
    throw new Error(
      `could not list waiting migrations (${cause?.details ?? cause?.message ?? (err as Error).message}); the worker registers the ${WsmigratePendingApproval.name} search attribute when it starts: is one running against this namespace?`,
    );
  }
  const answers: (PendingApproval | 'silent' | undefined)[] = new Array(listed.length);
  let next = 0;
  const ask = async (): Promise<void> => {
    for (let i = next++; i < listed.length; i = next++) {
      answers[i] = await client.connection
        .withDeadline(Date.now() + answerMs, () => pendingApproval(client, listed[i].workflowId))
        .catch((): 'silent' => 'silent');
    }
  };
  await Promise.all(Array.from({ length: Math.min(QUERIES_AT_ONCE, listed.length) }, ask));
  const waiting: WaitingMigration[] = [];
  const silent: SilentWaitingRun[] = [];
  listed.forEach((run, i) => {
    const answer = answers[i];
    // The attribute lags the workflow by a moment: a run that answers "no gate" has just moved on.
    if (answer === 'silent') silent.push(run);
    else if (answer) waiting.push({ workflowId: run.workflowId, pending: answer });
  });
  return { waiting, silent };
}

/** The words for runs at a gate that answered no query: where to look. */
export function silentRunsText(silent: readonly SilentWaitingRun[], answerMs = WAITING_QUERY_ANSWER_MS): string {
  const ids = silent.map((s) => `${s.workflowId}${s.gateId ? ` (at '${s.gateId}')` : ''}`).join(', ');
  return `${silent.length} more run(s) wait at a gate by their search attribute but answered no query in ${Math.round(answerMs / 1000)} s: ${ids}. ` +
    "Is a worker running and polling their task queue? 'wsmigrate status <id>' says what the run waits on";
}

/** The workflow id names no migration this namespace knows. */
export class MigrationNotFoundError extends Error {
  constructor(readonly workflowId: string) {
    super(`no migration '${workflowId}' in this Temporal namespace; list waiting ones with 'wsmigrate approvals' or '/wsmigrate approvals'`);
    this.name = 'MigrationNotFoundError';
  }
}

/** What the chat bridge needs from Temporal, and nothing more: read the gate, decide, read a status, list waiting runs. */
export interface ApprovalGateway {
  pending(workflowId: string): Promise<PendingApproval | undefined>;
  decide(workflowId: string, decision: 'approve' | 'reject', opts: DecisionOptions): Promise<ApprovalReceipt>;
  /** As `wsmigrate status` reads it: a failed run says failed and why. */
  status(workflowId: string): Promise<RunStatus>;
  waiting(): Promise<WaitingRuns>;
}

function notFound(workflowId: string) {
  return (err: unknown): never => {
    if (err instanceof WorkflowNotFoundError) throw new MigrationNotFoundError(workflowId);
    throw err;
  };
}

export function approvalGateway(client: Client): ApprovalGateway {
  return {
    pending: (id) => pendingApproval(client, id).catch(notFound(id)),
    decide: (id, decision, opts) => decide(client, id, decision, opts).catch(notFound(id)),
    status: async (id) => {
      await client.workflow.getHandle(id).describe().catch(notFound(id));
      return runStatus(client, id);
    },
    waiting: () => waitingForApproval(client),
  };
}
