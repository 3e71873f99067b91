import { Context } from '@temporalio/activity';

export interface RequestCancellationInput {
  workflowId: string;
  runId: string;
}

/**
 * Asks Temporal to cancel the run that calls it. A workflow ends as Cancelled (the Web UI's badge,
 * `ExecutionStatus = 'Canceled'`) only after a cancel request, and the server refuses a workflow's
 * own request to cancel itself ("Unable to cancel external workflow because not found"); a fleet
 * cancelled by its update, signal or a rejected gate asks through this activity instead. Asking
 * twice is harmless: the server keeps one request.
 */
export function makeRequestCancellation() {
  return async function requestCancellation(input: RequestCancellationInput): Promise<void> {
    await Context.current().client.workflow.getHandle(input.workflowId, input.runId).cancel();
  };
}
