import fc from 'fast-check';
import type { Backoff } from '../model/queue.schema';
import { afterFailure, retryDelayMs, retryDelayMsWithoutJitter } from './retry.policy';

const NOW = 1_749_996_000_000;
const exp: Backoff = { type: 'exponential', delayMs: 1000, maxDelayMs: 60_000, jitter: 0 };
const fixed: Backoff = { type: 'fixed', delayMs: 5000, maxDelayMs: 60_000, jitter: 0 };

describe('retryDelayMsWithoutJitter', () => {
  it.each([
    [exp, 1, 1000],
    [exp, 2, 2000],
    [exp, 3, 4000],
    [exp, 6, 32_000],
    [exp, 7, 60_000],
    [exp, 1000, 60_000],
    [exp, 0, 1000],
    [fixed, 1, 5000],
    [fixed, 9, 5000],
    [{ ...exp, delayMs: 0 }, 5, 0],
    [{ ...exp, delayMs: 7000, maxDelayMs: 10_000 }, 2, 10_000],
  ])('%j attempt %d → %d ms', (backoff, attempt, expected) => {
    expect(retryDelayMsWithoutJitter(backoff, attempt)).toBe(expected);
  });
});

describe('retryDelayMs', () => {
  it('equals the deterministic delay when jitter is 0, whatever random says', () => {
    expect(retryDelayMs(exp, 3, () => 0.99)).toBe(4000);
  });

  it('takes off at most the jitter share, never adds', () => {
    const j = { ...exp, jitter: 0.5 };
    expect(retryDelayMs(j, 3, () => 0)).toBe(4000);
    expect(retryDelayMs(j, 3, () => 0.5)).toBe(3000);
    expect(retryDelayMs(j, 3, () => 0.999_999)).toBe(2001);
    expect(retryDelayMs(j, 3, () => 7)).toBe(2000); // random clamped to [0, 1]
    expect(retryDelayMs({ ...j, delayMs: 0 }, 3, () => 0.5)).toBe(0);
  });

  const backoffArb = fc
    .record({
      type: fc.constantFrom('exponential', 'fixed' as const),
      delayMs: fc.integer({ min: 0, max: 100_000 }),
      extra: fc.integer({ min: 0, max: 10_000_000 }),
      jitter: fc.double({ min: 0, max: 1, noNaN: true }),
    })
    .map(({ extra, ...b }): Backoff => ({ ...b, maxDelayMs: b.delayMs + extra }));

  it('never exceeds the cap and stays within [d(1-jitter), d]', () => {
    fc.assert(
      fc.property(
        backoffArb,
        fc.integer({ min: 1, max: 2000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (b, attempt, r) => {
          const d = retryDelayMsWithoutJitter(b, attempt);
          const withJitter = retryDelayMs(b, attempt, () => r);
          expect(d).toBeLessThanOrEqual(b.maxDelayMs);
          expect(withJitter).toBeLessThanOrEqual(d);
          expect(withJitter).toBeGreaterThanOrEqual(Math.floor(d * (1 - b.jitter)));
          expect(Number.isInteger(withJitter)).toBe(true);
        },
      ),
    );
  });

  it('never decreases with attempts (no jitter)', () => {
    fc.assert(
      fc.property(backoffArb, fc.integer({ min: 1, max: 2000 }), (b, attempt) => {
        const noJitter = { ...b, jitter: 0 };
        expect(retryDelayMs(noJitter, attempt + 1, () => 0.5)).toBeGreaterThanOrEqual(
          retryDelayMs(noJitter, attempt, () => 0.5),
        );
      }),
    );
  });
});

describe('afterFailure', () => {
  const policy = { backoff: exp };
  const error = { kind: 'error' as const, message: 'boom' };

  it.each([
    [
      'first attempt failed',
      { attempt: 1, maxAttempts: 3 },
      error,
      { action: 'retry', at: NOW + 1000, delayMs: 1000, nextAttempt: 2 },
    ],
    [
      'second attempt failed',
      { attempt: 2, maxAttempts: 3 },
      error,
      { action: 'retry', at: NOW + 2000, delayMs: 2000, nextAttempt: 3 },
    ],
    [
      'timeout counts as a failure',
      { attempt: 1, maxAttempts: 3 },
      { kind: 'timeout' as const },
      { action: 'retry', at: NOW + 1000, delayMs: 1000, nextAttempt: 2 },
    ],
    [
      'expired lease counts as one attempt',
      { attempt: 2, maxAttempts: 3 },
      { kind: 'lease-expired' as const },
      { action: 'retry', at: NOW + 2000, delayMs: 2000, nextAttempt: 3 },
    ],
    ['last attempt failed', { attempt: 3, maxAttempts: 3 }, error, { action: 'park', reason: 'attempts-exhausted' }],
    [
      'lease expired on the last attempt',
      { attempt: 3, maxAttempts: 3 },
      { kind: 'lease-expired' as const },
      { action: 'park', reason: 'lease-expired' },
    ],
    [
      'permanent error on the first attempt',
      { attempt: 1, maxAttempts: 3 },
      { ...error, permanent: true },
      { action: 'park', reason: 'permanent-error' },
    ],
    [
      'a single attempt allowed',
      { attempt: 1, maxAttempts: 1 },
      error,
      { action: 'park', reason: 'attempts-exhausted' },
    ],
    [
      'attempt 0 is treated as the first',
      { attempt: 0, maxAttempts: 3 },
      error,
      { action: 'retry', at: NOW + 1000, delayMs: 1000, nextAttempt: 2 },
    ],
  ])('%s', (_name, run, failure, expected) => {
    expect(afterFailure(run, failure, policy, NOW)).toEqual(expected);
  });

  it('without a random, jitter takes nothing off (the deterministic upper bound)', () => {
    expect(afterFailure({ attempt: 2, maxAttempts: 3 }, error, { backoff: { ...exp, jitter: 1 } }, NOW)).toMatchObject({
      delayMs: 2000,
    });
  });

  it('lets the policy override maxAttempts and applies jitter with the given random', () => {
    expect(afterFailure({ attempt: 3, maxAttempts: 3 }, error, { backoff: exp, maxAttempts: 5 }, NOW)).toMatchObject({
      action: 'retry',
    });
    expect(
      afterFailure({ attempt: 1, maxAttempts: 3 }, error, { backoff: { ...exp, jitter: 1 } }, NOW, () => 0.5),
    ).toEqual({
      action: 'retry',
      at: NOW + 500,
      delayMs: 500,
      nextAttempt: 2,
    });
  });
});
