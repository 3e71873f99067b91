import type { ReadinessCheck } from '../adapters/metrics/readiness';

/**
 * Checks Coder once as the worker starts, without holding the start up: a Coder that does not answer,
 * or rejects the token, is said at once in the worker's log rather than first in a migration's
 * preflight retries. Only a warning: Coder may come up before the first migration.
 */
export async function checkCoderAtStart(coder: ReadinessCheck, url: string, log: (line: string) => void): Promise<void> {
  try {
    await coder.check();
  } catch (err) {
    log(
      `WARNING: Coder at ${url} is not usable by this worker yet: ${(err instanceof Error ? err.message : String(err)).replace(/\.\s*$/, '')}. ` +
        "Every migration's preflight fails and is retried until it is; '/readyz' says when it is",
    );
  }
}
