import { decodeAttempts } from '@drover/store';
import { attemptError, lostAttempts } from './attempt-errors';

describe('lostAttempts', () => {
  it('finds the attempts that started but never finished', () => {
    expect(lostAttempts({ attemptsMade: 0 }, 1, 5)).toEqual([]);
    expect(lostAttempts({ attemptsMade: 1 }, 2, 5)).toEqual([]); // attempt 1 failed normally
    expect(lostAttempts({ attemptsMade: 0 }, 2, 5)).toEqual([
      expect.objectContaining({ attempt: 1, kind: 'lease-expired', failedAt: 5 }),
    ]);
    expect(lostAttempts({ attemptsMade: 1 }, 4, 5).map((r) => r.attempt)).toEqual([2, 3]);
  });
});

describe('attemptError', () => {
  const record = { attempt: 2, kind: 'error' as const, message: 'boom', failedAt: 9 };

  it('is an UnrecoverableError for a park decision, so BullMQ does not retry it', () => {
    const err = attemptError(record, { action: 'park', reason: 'attempts-exhausted' });
    expect(err.name).toBe('UnrecoverableError');
    expect(err.message).toBe('boom');
    expect(decodeAttempts([err.stack!])).toEqual([record]);
  });

  it('is a plain error carrying the retry delay for the backoff strategy', () => {
    const err = attemptError(record, { action: 'retry', at: 1009, delayMs: 1000, nextAttempt: 3 });
    expect(err.name).toBe('Error');
    expect(err.decision).toMatchObject({ action: 'retry', delayMs: 1000 });
  });
});
