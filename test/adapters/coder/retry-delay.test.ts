import fc from 'fast-check';
import { backoffDelayMs, parseRetryAfterMs, pollDelayMs, type RetryPolicy } from '../../../src/adapters/coder/retry-delay';

const now = Date.parse('2026-07-08T09:00:00Z');

describe('parseRetryAfterMs', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfterMs('7', now)).toBe(7000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
    expect(parseRetryAfterMs('1.5', now)).toBe(1500);
  });

  it('reads an HTTP date relative to now', () => {
    expect(parseRetryAfterMs('Wed, 08 Jul 2026 09:00:12 GMT', now)).toBe(12_000);
  });

  it('treats a date in the past as "retry now"', () => {
    expect(parseRetryAfterMs('Wed, 08 Jul 2026 08:59:00 GMT', now)).toBe(0);
  });

  it('ignores a missing or unreadable header', () => {
    expect(parseRetryAfterMs(null, now)).toBeUndefined();
    expect(parseRetryAfterMs('', now)).toBeUndefined();
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs('-1', now)).toBeUndefined();
  });
});

describe('backoffDelayMs', () => {
  const policy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 10_000 };

  it('doubles per retry until the cap', () => {
    const noJitter = () => 1;
    expect([1, 2, 3, 4, 5, 6, 7].map((r) => backoffDelayMs(r, policy, noJitter))).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  });

  it('stays between half and all of the capped exponential delay, whatever the jitter', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (retry, r) => {
        const full = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
        const delay = backoffDelayMs(retry, policy, () => r);
        return delay >= Math.floor(full / 2) && delay <= full;
      }),
    );
  });
});

describe('pollDelayMs', () => {
  it('waits half the time spent in the status so far, at least 250 ms and at most 5 s', () => {
    expect(pollDelayMs(0)).toBe(250);
    expect(pollDelayMs(500)).toBe(250);
    expect(pollDelayMs(4_000)).toBe(2_000);
    expect(pollDelayMs(10_000)).toBe(5_000);
    expect(pollDelayMs(3_600_000)).toBe(5_000);
  });
});
