import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { PendingApproval } from '../domain/approval-policy';
import type { ApprovalReceipt } from '../contracts/approval';
import { decide, pendingApproval, type DecisionOptions, type MigrationStatus } from './migrations';
import { WsmigratePendingApproval } from '../contracts/search-attributes';
import { runStatus, type RunStatus } from './run-status';

export { pendingApproval };
export type { MigrationStatus, RunStatus };

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
