import { pollDelayMs } from './retry-delay';

export interface PollOptions<T> {
  timeoutMs: number;
  onPoll?: (latest: T) => void;
  signal?: AbortSignal;
}

export interface PollClock {
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}

/**
 * Reads `read()` until `isDone` holds, sleeping a growing interval between reads. When the time is up
 * it throws what `onTimeout` builds from the last value seen; an abort throws the signal's reason.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  isDone: (latest: T) => boolean,
  options: PollOptions<T>,
  clock: PollClock,
  onTimeout: (latest: T, waitedMs: number) => Error,
): Promise<T> {
  const startedAt = clock.now();
  const deadline = startedAt + options.timeoutMs;
  for (let polls = 1; ; polls++) {
    options.signal?.throwIfAborted();
    const latest = await read();
    options.onPoll?.(latest);
    if (isDone(latest)) return latest;
    const remaining = deadline - clock.now();
    if (remaining <= 0) throw onTimeout(latest, clock.now() - startedAt);
    await abortable(clock.sleep(Math.min(pollDelayMs(polls), remaining)), options.signal);
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
