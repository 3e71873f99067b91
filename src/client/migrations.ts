import { WorkflowExecutionAlreadyStartedError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import {
  migrateTemplateInputSchema,
  migrateWorkspaceInputSchema,
  parseInput,
  templateWorkflowId,
  workspaceWorkflowId,
  type MigrateTemplateInput,
  type MigrateWorkspaceInput,
} from '../domain/migration-input';
import type { ApprovalChannel, PendingApproval } from '../domain/approval-policy';
import { approvalSignal, approveUpdate, pendingApprovalQuery, rejectUpdate, type ApprovalReceipt, type DecisionPayload } from '../contracts/approval';
import { workspaceStatusQuery, type WorkspaceMigrationStatus } from '../contracts/migrate-workspace';
import { templateStatusQuery, type TemplateMigrationStatus } from '../contracts/migrate-template';
import { WsmigrateTemplate } from '../contracts/search-attributes';
import { fleetProgressQuery, type FleetProgress } from '../contracts/migrate-fleet';
import { templateRunSummary, workspaceRunSummary } from '../domain/run-details';
import { explainStartFailure } from './start-failure';
import { RefusedError } from './refused-error';

export interface StartOptions {
  taskQueue: string;
  /** The target version's name for the run's one-line summary in the Web UI (default: its id's first 8 characters). */
  versionName?: string;
}

/** Starts a workflow under its business id, tagged with its template; a second start of a running one says so. */
async function startTagged(client: Client, workflowType: string, workflowId: string, template: string, what: string, input: unknown, opts: StartOptions, staticSummary: string): Promise<WorkflowHandle> {
  try {
    return await client.workflow.start(workflowType, {
      taskQueue: opts.taskQueue,
      workflowId,
      args: [input],
      typedSearchAttributes: [{ key: WsmigrateTemplate, value: template }],
      staticSummary,
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      throw new Error(`a migration of ${what} is already running (${workflowId}); see 'wsmigrate status ${workflowId}'`);
    }
    throw explainStartFailure(err, client.options.namespace);
  }
}

/** Validates before starting, so bad input never reaches the server; one run per workspace id. */
export async function startWorkspaceMigration(client: Client, input: MigrateWorkspaceInput, opts: StartOptions): Promise<WorkflowHandle> {
  const p = parseInput(migrateWorkspaceInputSchema, input);
  const summary = workspaceRunSummary(p.owner, p.workspace, p.template, opts.versionName ?? p.targetVersionId.slice(0, 8));
  return startTagged(client, 'migrateWorkspace', workspaceWorkflowId(p.template, p.owner, p.workspace), p.template, `${p.owner}/${p.workspace}`, input, opts, summary);
}

export async function startTemplateMigration(client: Client, input: MigrateTemplateInput, opts: StartOptions): Promise<WorkflowHandle> {
  const p = parseInput(migrateTemplateInputSchema, input);
  return startTagged(client, 'migrateTemplate', templateWorkflowId(p.organization, p.template), p.template, `template ${p.organization}/${p.template}`, input, opts, templateRunSummary(p.organization, p.template));
}

export type MigrationStatus = WorkspaceMigrationStatus | TemplateMigrationStatus | FleetProgress;

export async function migrationStatus(client: Client, workflowId: string): Promise<MigrationStatus> {
  const handle = client.workflow.getHandle(workflowId);
  if (workflowId.startsWith('wsmigrate-template/')) return handle.query(templateStatusQuery);
  if (workflowId.startsWith('wsmigrate-fleet/')) return handle.query(fleetProgressQuery);
  return handle.query(workspaceStatusQuery);
}

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
  let pending: PendingApproval | undefined;
  if (!opts.gateId || !opts.planHash) {
    pending = await pendingApproval(client, workflowId);
    if (!pending) throw new Error(`${workflowId} is not waiting for an approval; see 'wsmigrate status ${workflowId}'`);
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
