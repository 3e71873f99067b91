/** How often and how patiently the client repeats a request that failed for a transient reason. */
export interface RetryPolicy {
  /** Total tries of one request, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 10_000 };

/**
 * A Retry-After longer than this is not waited out in-process: the error surfaces as retryable
 * (with `retryAfterMs`) so the Temporal activity retry, which survives a worker restart, waits instead.
 */
export const MAX_IN_PROCESS_RETRY_AFTER_MS = 60_000;

/**
 * Delay before retry number `retry` (1 = the first retry): exponential, capped, with "equal jitter"
 * (half fixed, half random) so many workers retrying together spread out but never retry at once.
 */
export function backoffDelayMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exponential = policy.baseDelayMs * 2 ** Math.max(0, retry - 1);
  const capped = Math.min(policy.maxDelayMs, exponential);
  return Math.round(capped / 2 + random() * (capped / 2));
}

/**
 * Milliseconds to wait according to an HTTP Retry-After header: delta-seconds or an HTTP-date.
 * Returns undefined when the header is absent or unreadable, so the caller falls back to backoff.
 */
export function parseRetryAfterMs(header: string | null | undefined, nowMs: number): number | undefined {
  if (header === null || header === undefined) return undefined;
  const value = header.trim();
  if (value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  // Only a date with letters is an HTTP-date; Date.parse would also accept things like "-1".
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** The shortest and longest interval between two polls of a job. */
export const POLL_DELAY_BOUNDS_MS = { min: 250, max: 5_000 } as const;

/**
 * Interval before the next poll of a job that has been in its current status for `inStatusMs`: half
 * of that, between 250 ms and 5 s. A job is seen ending within a third of the time it ran (a short
 * build soon after it ends, where the migration's next build waits on it, not up to 750 ms later),
 * a long queue costs as few reads as the old 1.5× backoff, and a build of many minutes a read every
 * 5 s. A new status (queued → running) starts it again. (Coder's CLI reads the job every second
 * and stops when the log stream closes: cli/cliui/provisionerjob.go `ProvisionerJob`.)
 */
export function pollDelayMs(inStatusMs: number): number {
  return Math.min(POLL_DELAY_BOUNDS_MS.max, Math.max(POLL_DELAY_BOUNDS_MS.min, Math.round(inStatusMs / 2)));
}
