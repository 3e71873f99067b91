import { RefusedError } from './refused-error';
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import {
  migrateTemplateInputSchema,
  migrateWorkspaceInputSchema,
  parseInput,
  templateWorkflowId,
  workspaceWorkflowId,
  type MigrateTemplateInput,
  type MigrateWorkspaceInput,
} from '../domain/migration-input';
import { workspaceStatusQuery, type WorkspaceMigrationStatus } from '../contracts/migrate-workspace';
import { templateStatusQuery, type TemplateMigrationStatus } from '../contracts/migrate-template';
import { WsmigrateTemplate } from '../contracts/search-attributes';
import { fleetProgressQuery, type FleetProgress } from '../contracts/migrate-fleet';
import { templateRunSummary, workspaceRunSummary } from '../domain/run-details';
import { explainStartFailure } from './start-failure';

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
      throw new RefusedError(`a migration of ${what} is already running (${workflowId}); see 'wsmigrate status ${workflowId}'`);
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
