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

type HistoryEvents = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>;

/**
 * The most child workflows a run had in flight at once, read from its own history: a child counts
 * from the command that starts it to the event that tells the parent it ended. Exact, where polling
 * the progress query can miss a child that started and ended between two polls.
 */
export function mostChildrenInFlight(events: HistoryEvents): number {
  const inFlight = new Set<string>();
  let most = 0;
  for (const e of events) {
    const started = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
    if (started) {
      inFlight.add(started);
      most = Math.max(most, inFlight.size);
    }
    const ended =
      e.startChildWorkflowExecutionFailedEventAttributes?.workflowId ??
      (
        e.childWorkflowExecutionCompletedEventAttributes ??
        e.childWorkflowExecutionFailedEventAttributes ??
        e.childWorkflowExecutionCanceledEventAttributes ??
        e.childWorkflowExecutionTerminatedEventAttributes ??
        e.childWorkflowExecutionTimedOutEventAttributes
      )?.workflowExecution?.workflowId;
    if (ended) inFlight.delete(ended);
  }
  return most;
}
