import { ApplicationFailure } from '@temporalio/common';
import { isCoderApiError } from '../adapters/coder';
import { FailureType } from '../domain/failure-types';

export { FailureType };

/** A final refusal that names the workspace, the step, what is wrong and what to do. */
export function refuse(step: string, subject: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ message: `${step} refused for ${subject}: ${message}`, type: FailureType.refused, nonRetryable: true });
}

export function conflict(step: string, subject: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ message: `${step}: ${subject}: ${message}`, type: FailureType.conflict, nonRetryable: true });
}

/**
 * Coder errors keep their own safe message (no token, no body); final ones (401/403/404/400)
 * become non-retryable so Temporal does not hammer a request that cannot succeed.
 */
export async function coderStep<T>(step: string, subject: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isCoderApiError(err)) {
      throw ApplicationFailure.create({
        message: `${step} failed for ${subject}: ${err.message}`,
        type: `CoderApi.${err.kind}`,
        nonRetryable: !err.retryable,
      });
    }
    throw err;
  }
}

/** A pure check that throws a plain error (a bad version string, an unreadable state): no retry can fix it, so refuse. */
export function refuseOn<T>(step: string, subject: string, errorTypes: (new (...args: never[]) => Error)[], fn: () => T, prefix = '', suffix = ''): T {
  try {
    return fn();
  } catch (err) {
    if (errorTypes.some((t) => err instanceof t)) throw refuse(step, subject, `${prefix}${(err as Error).message}${suffix}`);
    throw err;
  }
}

/** Why a build's job ended as it did, in Coder's words, or what a job without words means. */
export function jobOutcomeText(job: { status: string; error?: string | null }): string {
  if (job.error) return job.error;
  return job.status === 'canceled' ? 'its job was canceled in Coder (PATCH …/cancel, by a user or an admin)' : 'no error text';
}
