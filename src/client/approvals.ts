import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { joinSentences } from '../domain/sentences';
import type { ApprovalChannel, PendingApproval } from '../domain/approval-policy';
import { approvalSignal, approveUpdate, pendingApprovalQuery, rejectUpdate, type ApprovalReceipt, type DecisionPayload } from '../contracts/approval';
import { WsmigratePendingApproval } from '../contracts/search-attributes';
import { failingWorkflowTask } from './workflow-task-failure';
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
  // A run whose worker fails its workflow tasks answers no query and takes no update (they time out or are refused).
  const failing = await client.workflow
    .getHandle(workflowId)
    .describe()
    .then((d) => failingWorkflowTask(client, workflowId, d.raw.pendingWorkflowTask))
    .catch(() => undefined);
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

/** Every running migration that waits for a human now (from the WsmigratePendingApproval search attribute). */
export async function waitingForApproval(client: Client, limit = 50): Promise<WaitingMigration[]> {
  const query = `ExecutionStatus = 'Running' AND ${WsmigratePendingApproval.name} IS NOT NULL AND ${WsmigratePendingApproval.name} != 'none'`;
  const waiting: WaitingMigration[] = [];
  try {
    for await (const wf of client.workflow.list({ query })) {
      // The attribute lags the workflow by a moment; the query is the truth.
      const pending = await pendingApproval(client, wf.workflowId).catch(() => undefined);
      if (pending) waiting.push({ workflowId: wf.workflowId, pending });
      if (waiting.length >= limit) break;
    }
  } catch (err) {
    const cause = (err as { cause?: { details?: string; message?: string } }).cause;
    throw new Error(
      `could not list waiting migrations (${cause?.details ?? cause?.message ?? (err as Error).message}); the worker registers the ${WsmigratePendingApproval.name} search attribute when it starts: is one running against this namespace?`,
    );
  }
  return waiting;
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
  waiting(): Promise<WaitingMigration[]>;
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
