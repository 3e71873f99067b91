import { pollDelayMs } from './retry-delay';

export interface PollOptions<T> {
  timeoutMs: number;
  onPoll?: (latest: T) => void;
  signal?: AbortSignal;
  /**
   * While this holds (a job still waiting for a provisioner daemon), the time does not count against
   * `timeoutMs`, up to `maxQueuedMs` in all: the deadline measures the work, and a job stuck in the
   * queue forever still ends the wait.
   */
  queued?: (latest: T) => boolean;
  maxQueuedMs?: number;
  /**
   * What the caller has just read itself (a build as Coder answered its creation): taken as the
   * first reading, so the wait begins with a sleep instead of asking again for the same thing.
   */
  first?: T;
  /** The job's status in a reading: the interval between reads grows with the time spent in one status. */
  statusOf?: (latest: T) => string;
}

/** How long a wait lasted and how much of it the job spent queued (the part not counted). */
export interface WaitSpent {
  waitedMs: number;
  queuedMs: number;
}

export interface PollClock {
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}

/**
 * Reads `read()` until `isDone` holds, sleeping between reads half the time spent in the current
 * status (retry-delay.ts `pollDelayMs`). When the time is up it throws what `onTimeout`
 * builds from the last value seen; an abort throws the signal's reason.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  isDone: (latest: T) => boolean,
  options: PollOptions<T>,
  clock: PollClock,
  onTimeout: (latest: T, waitedMs: number, spent: WaitSpent) => Error,
): Promise<T> {
  const startedAt = clock.now();
  const maxQueuedMs = options.queued ? Math.max(0, options.maxQueuedMs ?? options.timeoutMs) : 0;
  let queuedMs = 0;
  let lastRead: { at: number; queued: boolean } | undefined;
  let status: { now: string; since: number } | undefined;
  for (let polls = 1; ; polls++) {
    options.signal?.throwIfAborted();
    const latest = polls === 1 && options.first !== undefined ? options.first : await read();
    const at = clock.now();
    // The span since the last read counts as queued only when both ends saw the job queued.
    const queuedNow = options.queued?.(latest) ?? false;
    if (lastRead?.queued && queuedNow) queuedMs = Math.min(maxQueuedMs, queuedMs + (at - lastRead.at));
    lastRead = { at, queued: queuedNow };
    const statusNow = options.statusOf?.(latest) ?? '';
    if (status?.now !== statusNow) status = { now: statusNow, since: polls === 1 ? startedAt : at };
    options.onPoll?.(latest);
    if (isDone(latest)) return latest;
    const deadline = startedAt + options.timeoutMs + queuedMs;
    const remaining = deadline - at;
    if (remaining <= 0) throw onTimeout(latest, at - startedAt, { waitedMs: at - startedAt, queuedMs });
    await abortable(clock.sleep(Math.min(pollDelayMs(at - status.since), remaining)), options.signal);
  }
}

function abortable(wait: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return wait;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    wait.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
