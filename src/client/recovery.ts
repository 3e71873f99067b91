import { RefusedError } from './refused-error';
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { migrateWorkspaceInputSchema, parseInput, workspaceWorkflowId, type MigrateWorkspaceInput } from '../domain/migration-input';
import { WsmigrateTemplate } from '../contracts/search-attributes';
import type { StartOptions } from './migrations';

/**
 * Starts the recovery of a damaged workspace under the workspace's migration id, so it never runs
 * beside a migration of the same workspace; status and approvals work as for a migration.
 */
export async function startWorkspaceRecovery(client: Client, input: MigrateWorkspaceInput, opts: StartOptions): Promise<WorkflowHandle> {
  const p = parseInput(migrateWorkspaceInputSchema, input);
  const workflowId = workspaceWorkflowId(p.template, p.owner, p.workspace);
  try {
    return await client.workflow.start('recoverWorkspace', {
      taskQueue: opts.taskQueue,
      workflowId,
      args: [input],
      typedSearchAttributes: [{ key: WsmigrateTemplate, value: p.template }],
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      throw new RefusedError(`a migration or recovery of ${p.owner}/${p.workspace} is already running (${workflowId}); see 'wsmigrate status ${workflowId}'`);
    }
    throw err;
  }
}
