import { formatDuration } from '../domain/duration-text';

/**
 * When Temporal tries a failing workflow task again, from what `describe` says of the pending task.
 *
 * The worker reports only the first failure (a WorkflowTaskFailed event, the one message `status` can
 * show); from the second attempt on it leaves the task to time out, so each attempt holds the task
 * for its whole start-to-close timeout and no other worker gets it meanwhile. The server lengthens
 * that timeout after the third attempt: the run's workflow task timeout (10 s by default) plus a
 * backoff from 5 s doubling per attempt, capped by its dynamic config history.workflowTaskRetryMaxInterval
 * (10 min by default), less up to a fifth of jitter (temporalio/temporal
 * service/history/workflow/workflow_task_state_machine.go getStartToCloseTimeout:
 * workflowTaskRetryBackoffMinAttempts = 3, workflowTaskRetryInitialInterval = 5 s). Measured on the
 * dev server: attempts 2→3→4 10 s apart, then 14.3 s, 19.7 s, 29.2 s.
 */
export const WORKFLOW_TASK_BACKOFF_MIN_ATTEMPTS = 3;
export const WORKFLOW_TASK_BACKOFF_INITIAL_MS = 5_000;
/** history.workflowTaskRetryMaxInterval's default: a server may set another, which the client cannot read. */
export const WORKFLOW_TASK_BACKOFF_MAX_MS = 10 * 60_000;

type Ts = { seconds?: { toNumber(): number } | number | string | null; nanos?: number | null } | null | undefined;

export interface PendingTaskTimes {
  attempt?: number | null;
  /** temporal.api.enums.v1.PendingWorkflowTaskState: 1 scheduled (waits for a worker), 2 started (a worker holds it). */
  state?: number | null;
  startedTime?: Ts;
  scheduledTime?: Ts;
}

export interface NextAttempt {
  attempt: number;
  /** Started: a worker holds this attempt until `dueAt`; scheduled: the next worker to poll takes it. */
  state: 'started' | 'scheduled';
  startedAt?: Date;
  /** When this attempt times out and the next is given to a worker (the latest; jitter may make it up to a fifth of the backoff sooner). */
  dueAt?: Date;
}

function tsMs(ts: Ts): number | undefined {
  if (!ts || ts.seconds === null || ts.seconds === undefined) return undefined;
  const s = typeof ts.seconds === 'object' ? ts.seconds.toNumber() : Number(ts.seconds);
  return s * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);
}

/** How long attempt `attempt` holds the task before it times out. */
export function attemptTimeoutMs(attempt: number, workflowTaskTimeoutMs: number): number {
  if (attempt <= WORKFLOW_TASK_BACKOFF_MIN_ATTEMPTS) return workflowTaskTimeoutMs;
  const backoff = WORKFLOW_TASK_BACKOFF_INITIAL_MS * 2 ** (attempt - WORKFLOW_TASK_BACKOFF_MIN_ATTEMPTS - 1);
  return workflowTaskTimeoutMs + Math.min(backoff, WORKFLOW_TASK_BACKOFF_MAX_MS);
}

export function nextWorkflowTaskAttempt(pending: PendingTaskTimes | null | undefined, workflowTaskTimeoutMs: number): NextAttempt | undefined {
  const attempt = pending?.attempt ?? 0;
  if (!pending || attempt < 1) return undefined;
  if (pending.state === 1) return { attempt, state: 'scheduled' };
  const started = tsMs(pending.startedTime);
  if (pending.state !== 2 || started === undefined) return undefined;
  return { attempt, state: 'started', startedAt: new Date(started), dueAt: new Date(started + attemptTimeoutMs(attempt, workflowTaskTimeoutMs)) };
}

/** What `status` says of the retry: on whom it waits, roughly when, and why neither a restart nor a reset hurries it. */
export function workflowTaskRetryText(next: NextAttempt | undefined, now = Date.now()): string {
  const noHurry =
    "Restarting the worker does not bring it sooner: Temporal gives a started attempt to no other worker until it times out. " +
    "Do not 'temporal workflow reset' to hurry it: a reset starts the run again from an earlier point and runs its steps again";
  if (next?.state === 'scheduled') {
    return `Temporal has scheduled attempt ${next.attempt}: the next worker to poll the task queue takes it, and once the worker is fixed the run moves on from there`;
  }
  if (next?.dueAt && next.startedAt) {
    const left = next.dueAt.getTime() - now;
    const when = left > 0 ? `at about ${next.dueAt.toISOString()} (in about ${formatDuration(left)})` : 'any moment now (its timeout has passed)';
    return (
      `Temporal retries it by itself: attempt ${next.attempt} started at ${next.startedAt.toISOString()} and the next is given to a worker ${when}; ` +
      `once the worker is fixed, that attempt moves the run on and this error goes. Each attempt after the third waits longer: 5 s more, doubling each time, up to about 10 min by default. ${noHurry}`
    );
  }
  return `Temporal retries it by itself with a backoff that grows to about 10 min between attempts; once the worker is fixed, the next attempt moves the run on and this error goes. ${noHurry}`;
}
