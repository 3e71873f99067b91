import { ActivityFailure, ApplicationFailure, type ActivityOptions, type Duration, type LocalActivityOptions } from '@temporalio/common';
import { FINAL_FAILURE_TYPES } from '../domain/failure-types';

export { FINAL_FAILURE_TYPES };

/** A short Coder call or local step: retried with backoff, except for failures no retry can fix. */
export const QUICK_STEP: ActivityOptions = {
  startToCloseTimeout: '2m',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 10, nonRetryableErrorTypes: FINAL_FAILURE_TYPES },
};

/**
 * The same retries for a quick step run as a local activity: it runs inside the workflow task and
 * leaves one marker event instead of three events and another workflow task. For reads, pure steps
 * and idempotent quick writes only; nothing that waits on a build or must heartbeat.
 */
export const QUICK_LOCAL_STEP: LocalActivityOptions = {
  startToCloseTimeout: '2m',
  retry: QUICK_STEP.retry,
};

/** One attempt of a local step whose retries, if it needs them, run as a regular activity (status shows those). */
export const ONE_LOCAL_ATTEMPT: LocalActivityOptions = {
  startToCloseTimeout: '2m',
  retry: { maximumAttempts: 1 },
};

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** '30m' → 1800000. Inputs are validated by the schema, so a bad string is a programming error. */
export function durationMs(text: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (!m) throw new Error(`not a duration: ${text}`);
  return Number(m[1]) * UNIT_MS[m[2]];
}

/**
 * An activity's failure reaches the workflow wrapped ("Activity task failed"); operators need the
 * activity's own words ("preflight refused for alice/dev: …"), so the workflow fails with those.
 */
export function withActivityMessage(err: unknown): unknown {
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) {
    return ApplicationFailure.create({ message: err.cause.message, type: err.cause.type ?? undefined, nonRetryable: true });
  }
  return err;
}

/**
 * A step that waits for a Coder build: as long as the build may take, heartbeating, a few retries.
 * The wait does not count up to one more buildTimeout that the build spends queued for a provisioner daemon.
 */
export function buildStepOptions(input: { buildTimeout: string; heartbeatTimeout: string }): ActivityOptions {
  return {
    startToCloseTimeout: 2 * durationMs(input.buildTimeout) + 5 * 60_000,
    heartbeatTimeout: input.heartbeatTimeout as Duration,
    retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '2m', maximumAttempts: 5, nonRetryableErrorTypes: FINAL_FAILURE_TYPES },
  };
}

/**
 * The compensation's build: the same timeouts, and it keeps trying for a long time, because giving
 * up on a restore is the worst outcome.
 */
export function restoreStepOptions(input: { buildTimeout: string; heartbeatTimeout: string }): ActivityOptions {
  return {
    ...buildStepOptions(input),
    retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '5m', maximumAttempts: 30, nonRetryableErrorTypes: FINAL_FAILURE_TYPES },
  };
}

/** An activity's own message, not the wrapper's 'Activity task failed'. */
export function failureMessage(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string } };
  return e?.cause?.message ?? e?.message ?? String(err);
}

/** The failure type an activity threw, seen through the workflow's ActivityFailure wrapper. */
export function failureType(err: unknown): string | undefined {
  const e = err as { type?: string; cause?: { type?: string } };
  return e?.cause?.type ?? e?.type;
}

/** A failure no retry can fix: marked non-retryable, or of a type the retry policies never retry. */
export function isFinalFailure(err: unknown): boolean {
  const e = err as { nonRetryable?: boolean; cause?: { nonRetryable?: boolean } };
  const type = failureType(err);
  return e?.cause?.nonRetryable === true || e?.nonRetryable === true || (type !== undefined && FINAL_FAILURE_TYPES.includes(type));
}

/** The build a failed build step made (its id in the failure's details), so the compensation knows it for ours. */
export function failedBuildId(err: unknown): string | undefined {
  const e = err as { details?: unknown[]; cause?: { details?: unknown[] } };
  const d = (e?.cause?.details ?? e?.details)?.[0] as { buildId?: unknown } | undefined;
  return typeof d?.buildId === 'string' ? d.buildId : undefined;
}

/** For a build step's `.catch`: the build it made and that failed is ours (the compensation builds over it), then the failure goes on. */
export function keepingFailedBuild(ownBuildIds: string[]): (err: unknown) => never {
  return (err) => {
    const failed = failedBuildId(err);
    if (failed) ownBuildIds.push(failed);
    throw err;
  };
}
