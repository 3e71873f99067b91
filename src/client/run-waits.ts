import { builtBy } from '../domain/build-initiator';
import { formatDuration } from '../domain/duration-text';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { failureText } from './failure-text';

/**
 * A live worker long-polls its task queue and the server notes each poll's start: about once a
 * minute when idle (measured on the dev server: 12 s … 58 s ago). Nothing newer than this means no
 * worker is there to run the run's next step or answer its status query.
 */
export const WORKER_SEEN_WITHIN_MS = 90_000;

export interface TaskQueueWorkers {
  taskQueue: string;
  /** Pollers heard from within WORKER_SEEN_WITHIN_MS. */
  live: string[];
  /** The most recent poller otherwise (a worker that stopped or was killed). */
  lastSeen?: { identity: string; at: string };
}

type Ts = { seconds?: { toNumber(): number } | number | null; nanos?: number | null } | null | undefined;

function tsMs(ts: Ts): number | undefined {
  if (!ts || ts.seconds === null || ts.seconds === undefined) return undefined;
  const s = typeof ts.seconds === 'number' ? ts.seconds : ts.seconds.toNumber();
  return s * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);
}

/** Who polls a run's task queue for workflow tasks (which answer queries and move the run on). */
export async function taskQueueWorkers(client: Client, taskQueue: string, now = Date.now()): Promise<TaskQueueWorkers> {
  const res = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const live: string[] = [];
  let lastSeen: { identity: string; ms: number } | undefined;
  for (const p of res.pollers ?? []) {
    const ms = tsMs(p.lastAccessTime as Ts);
    if (ms === undefined) continue;
    if (now - ms <= WORKER_SEEN_WITHIN_MS) live.push(p.identity ?? '?');
    else if (!lastSeen || ms > lastSeen.ms) lastSeen = { identity: p.identity ?? '?', ms };
  }
  return { taskQueue, live, ...(lastSeen && live.length === 0 ? { lastSeen: { identity: lastSeen.identity, at: new Date(lastSeen.ms).toISOString() } } : {}) };
}

/** The sentence `status` says when nobody polls the run's task queue: on whom the run waits and what to do. */
export function noWorkerText(w: TaskQueueWorkers): string {
  const seen = w.lastSeen ? `the last one, ${w.lastSeen.identity}, polled at ${w.lastSeen.at}` : 'none has polled it recently';
  return (
    `no worker is polling task queue '${w.taskQueue}' (${seen}), so the run does not move and cannot answer its status: ` +
    `start one with 'wsmigrate worker' (same TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and WSMIGRATE_TASK_QUEUE); ` +
    `the run resumes where it stopped, nothing is lost meanwhile`
  );
}

/** The SDK's longest heartbeat throttle (WorkerOptions.maxHeartbeatThrottleInterval, 60 s by default): the server hears a heartbeat at least this often from a live worker whose step heartbeats. */
const MAX_HEARTBEAT_THROTTLE_MS = 60_000;
/** What else a live step's last heartbeat may lag by: its own cadence (a build is read every 5 s at most, retry-delay.ts pollDelayMs), the call, and the clocks of this shell and Temporal. */
const HEARTBEAT_SLACK_MS = 15_000;

/**
 * How long a started step may go unheard before status says so. A live worker's heartbeats reach
 * Temporal at least every min(0.8 × heartbeat timeout, 60 s) (the SDK's throttle), so with the
 * step's heartbeat timeout known that plus some slack is silence: 75 s for the default 2 minutes,
 * where it was 90 s for every step. Without one (a quick step that does not heartbeat, or a
 * Temporal that does not say), 90 s as before.
 */
export function silentAfterMs(heartbeatTimeoutMs: number | undefined): number {
  if (!heartbeatTimeoutMs || heartbeatTimeoutMs <= 0) return WORKER_SEEN_WITHIN_MS;
  return Math.min(WORKER_SEEN_WITHIN_MS, Math.min(0.8 * heartbeatTimeoutMs, MAX_HEARTBEAT_THROTTLE_MS) + HEARTBEAT_SLACK_MS);
}

/** A protobuf Duration has a Timestamp's shape. */
function durationMs(d: Ts): number | undefined {
  const ms = tsMs(d);
  return ms !== undefined && ms > 0 ? ms : undefined;
}

export type PendingActivity = {
  activityType?: { name?: string | null } | null;
  state?: number | null;
  attempt?: number | null;
  maximumAttempts?: number | null;
  lastFailure?: { message?: string | null } | null;
  /** Set while the step waits out its retry backoff: when Temporal gives it to a worker again. */
  nextAttemptScheduleTime?: Ts;
  lastHeartbeatTime?: Ts;
  lastStartedTime?: Ts;
  lastWorkerIdentity?: string | null;
  heartbeatDetails?: unknown;
  /** The step's options as Temporal holds them (servers from 1.27 say): its heartbeat timeout. */
  activityOptions?: { heartbeatTimeout?: Ts } | null;
};

/** A started step not heard from (no heartbeat, no start) for longer than silentAfterMs: its worker may be gone. */
export interface SilentStep {
  activity: string;
  worker?: string;
  silentMs: number;
  heartbeatTimeoutMs?: number;
}

/** The step, when it is started, first tried, and silent past silentAfterMs (a retried step is said as retried). */
export function silentStep(a: PendingActivity, now = Date.now()): SilentStep | undefined {
  if ((a.attempt ?? 1) >= 2 || a.lastFailure) return undefined;
  if (a.state !== temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED) return undefined;
  const heard = tsMs(a.lastHeartbeatTime) ?? tsMs(a.lastStartedTime);
  if (heard === undefined) return undefined;
  const heartbeatTimeoutMs = durationMs(a.activityOptions?.heartbeatTimeout);
  if (now - heard <= silentAfterMs(heartbeatTimeoutMs)) return undefined;
  return { activity: a.activityType?.name ?? 'a step', ...(a.lastWorkerIdentity ? { worker: a.lastWorkerIdentity } : {}), silentMs: now - heard, ...(heartbeatTimeoutMs ? { heartbeatTimeoutMs } : {}) };
}

/**
 * What a running run's steps wait on, from Temporal's pending activities: a step being retried
 * (Coder answering 5xx, a timeout, a refused token) with its last error, and a started step whose
 * worker has gone quiet (killed mid-step: Temporal gives it to another worker once its heartbeat
 * timeout passes).
 */
export function activityWaits(pending: readonly PendingActivity[], now = Date.now()): string[] {
  const waits: string[] = [];
  for (const a of pending) {
    const name = a.activityType?.name ?? 'a step';
    const attempt = a.attempt ?? 1;
    if (attempt >= 2 || a.lastFailure) {
      const of = a.maximumAttempts ? ` of ${a.maximumAttempts}` : '';
      const why = a.lastFailure ? `: last error: ${failureText(a.lastFailure)}` : '';
      const nextMs = tsMs(a.nextAttemptScheduleTime);
      const next = nextMs !== undefined ? `; next attempt at ${new Date(nextMs).toISOString()} (in ${Math.max(0, Math.round((nextMs - now) / 1000))} s)` : '';
      waits.push(`step ${name} is being retried (attempt ${attempt}${of})${why}${next}`);
      continue;
    }
    const silent = silentStep(a, now);
    if (silent) {
      const worker = silent.worker ? `worker ${silent.worker}` : 'its worker';
      const timeout = silent.heartbeatTimeoutMs ? `its heartbeat timeout (${formatDuration(silent.heartbeatTimeoutMs)})` : "the run's heartbeat timeout (2m unless the run set heartbeatTimeout)";
      waits.push(
        `step ${name} runs on ${worker}, not heard from for ${Math.round(silent.silentMs / 1000)} s: if that worker is gone, ` +
          `Temporal gives the step to another worker once ${timeout} has passed`,
      );
    }
  }
  return waits;
}

/** A build waiting this long in Coder's queue is said: under it, it is a normal moment of the wait. */
export const BUILD_QUEUED_SAID_AFTER_MS = 30_000;

interface QueuedBuildView {
  build_number: number;
  transition: string;
  /** Who asked for the build (the owner's Start, Coder's autostart, our own): whose wait it is. */
  initiator_name?: string;
  reason?: string;
  job: { status: string; created_at: string; queue_position?: number; queue_size?: number };
}

/**
 * The workspace's latest build still pending in Coder's provisioner queue: the run waits on Coder's
 * provisioner daemons (all offline, busy, or none with the job's tags), not on wsmigrate or a person.
 */
export function queuedBuildWait(subject: string, build: QueuedBuildView | undefined, now = Date.now()): string | undefined {
  if (!build || build.job.status !== 'pending') return undefined;
  const since = Date.parse(build.job.created_at);
  if (!Number.isFinite(since) || now - since < BUILD_QUEUED_SAID_AFTER_MS) return undefined;
  const place = (build.job.queue_position ?? 0) > 0 ? ` at place ${build.job.queue_position} of ${build.job.queue_size ?? '?'} in the queue` : '';
  return (
    `Coder's build #${build.build_number} (${build.transition}${build.initiator_name || build.reason ? ` by ${builtBy({ initiator: build.initiator_name, reason: build.reason })}` : ''}) of ${subject} has been pending for ${Math.round((now - since) / 1000)} s${place}: ` +
    `no provisioner daemon has taken it yet. Check Coder's provisioner daemons (Deployment → Provisioners, or 'coder provisioner list'): ` +
    `offline, all busy, or none with the tags of the template's version; the run goes on once one takes it`
  );
}

/** What a running run's status query could not answer, and why: shown instead of its progress. */
export interface Unanswered {
  /** The run's phase as its search attribute last said (`running` when it said none). */
  phase: string;
  /** On whom the run waits: no worker on its task queue, or a query no worker answered. */
  text: string;
}

/**
 * A running run's query, asked only when a worker can answer it. With no worker polling the run's
 * task queue a query hangs about 30 s, then fails with `FAILED_PRECONDITION: no poller seen for task
 * queue recently`; a worker killed a moment ago still shows as polling, and its query fails the same
 * way. Either way the run itself is fine and resumes when a worker comes: say so (`unanswered`)
 * instead of failing the command, as `wsmigrate status` does.
 */
export async function queryRunningRun<T>(
  client: Client,
  d: { taskQueue: string; searchAttributes?: Record<string, unknown> },
  query: () => Promise<T>,
): Promise<{ value: T } | { unanswered: Unanswered }> {
  const phase = (d.searchAttributes?.WsmigratePhase as string[] | undefined)?.[0] ?? 'running';
  const workers = await taskQueueWorkers(client, d.taskQueue).catch(() => undefined);
  if (workers && workers.live.length === 0) return { unanswered: { phase, text: noWorkerText(workers) } };
  try {
    return { value: await query() };
  } catch (err) {
    const why = describeQueryError(err);
    const who = workers?.live.length ? ` (polling it lately: ${workers.live.join(', ')}; a worker killed in the last minute still shows)` : '';
    return {
      unanswered: {
        phase,
        text: `no worker answered the run's status query (${why})${who}: if no 'wsmigrate worker' runs on task queue '${d.taskQueue}', start one (same TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and WSMIGRATE_TASK_QUEUE); the run resumes where it stopped, nothing is lost meanwhile`,
      },
    };
  }
}

/** A failed query's message and its cause's (Temporal's FAILED_PRECONDITION under the SDK's wrapper). */
export function describeQueryError(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string } };
  return [e.message, e.cause?.message].filter(Boolean).join(': ');
}
