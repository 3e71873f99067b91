import type { Client } from '@temporalio/client';
import type { PendingApproval } from '../domain/approval-policy';
import { pendingApprovalQuery } from '../workflows/approval-gates';
import { WsmigratePendingApproval } from '../workflows/search-attributes';

/** The gate a workflow (workspace, template or fleet) is waiting on, or undefined. */
export async function pendingApproval(client: Client, workflowId: string): Promise<PendingApproval | undefined> {
  return (await client.workflow.getHandle(workflowId).query(pendingApprovalQuery)) ?? undefined;
}

export interface WaitingMigration {
  workflowId: string;
  pending: PendingApproval;
}

/** Every running migration that waits for a human now (from the WsmigratePendingApproval search attribute). */
export async function waitingForApproval(client: Client, limit = 50): Promise<WaitingMigration[]> {
  const query = `ExecutionStatus = 'Running' AND ${WsmigratePendingApproval.name} IS NOT NULL AND ${WsmigratePendingApproval.name} != 'none'`;
  const waiting: WaitingMigration[] = [];
  for await (const wf of client.workflow.list({ query })) {
    // The attribute lags the workflow by a moment; the query is the truth.
    const pending = await pendingApproval(client, wf.workflowId).catch(() => undefined);
    if (pending) waiting.push({ workflowId: wf.workflowId, pending });
    if (waiting.length >= limit) break;
  }
  return waiting;
}
