/** How hard one backend tries before the fan-out gives up on it and logs the failure. */
export interface RetryBudget {
  attempts: number;
  /** Each attempt is abandoned after this long. */
  attemptTimeoutMs: number;
  /** No new attempt starts after this much time has passed since the first. */
  totalMs: number;
  baseDelayMs: number;
}

export const DEFAULT_RETRY_BUDGET: RetryBudget = { attempts: 3, attemptTimeoutMs: 5_000, totalMs: 20_000, baseDelayMs: 500 };

/** A failure that no retry can fix (a 4xx from the backend, a bad channel); tried once. */
export class PermanentDeliveryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentDeliveryError';
  }
}

/** Runs `attempt` (given an AbortSignal that fires at the attempt's timeout) within the budget; throws the last error. */
export async function withRetryBudget<T>(attempt: (signal: AbortSignal) => Promise<T>, budget: RetryBudget = DEFAULT_RETRY_BUDGET): Promise<T> {
  const started = Date.now();
  let last: unknown;
  for (let i = 0; i < budget.attempts; i++) {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error(`no answer within ${budget.attemptTimeoutMs} ms`));
      }, budget.attemptTimeoutMs);
    });
    try {
      return await Promise.race([attempt(controller.signal), timeout]);
    } catch (err) {
      last = err;
      if (err instanceof PermanentDeliveryError) break;
    } finally {
      clearTimeout(timer);
    }
    const delay = budget.baseDelayMs * 2 ** i;
    if (i + 1 >= budget.attempts || Date.now() - started + delay > budget.totalMs) break;
    await new Promise((r) => setTimeout(r, delay));
  }
  throw last;
}
