import type { WorkflowHandle } from '@temporalio/client';

/**
 * The child workflows a run started from the moment it accepted the update named `update` (the
 * last one), once it has finished a workflow task after it: whatever it starts on that update it
 * starts in that task, so this proves "nothing started" without a sleep. Undefined until then.
 */
export async function childrenStartedAfterUpdate(handle: Pick<WorkflowHandle, 'fetchHistory'>, update: string): Promise<string[] | undefined> {
  const events = (await handle.fetchHistory()).events ?? [];
  let at = -1;
  events.forEach((e, i) => {
    if (e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === update) at = i;
  });
  if (at < 0 || !events.slice(at + 1).some((e) => e.workflowTaskCompletedEventAttributes)) return undefined;
  return events
    .slice(at)
    .map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId)
    .filter((id): id is string => typeof id === 'string');
}
