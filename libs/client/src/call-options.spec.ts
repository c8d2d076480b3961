import { InvalidOptionsError } from '@drover/core';
import { resolveEnqueueOptions, resolveListOptions, resolveWaitOptions } from './call-options';

const NOW = 1_767_225_600_000;

describe('enqueue options', () => {
  it('start now by default, with medium priority', () => {
    expect(resolveEnqueueOptions(undefined, NOW)).toEqual({ delayMs: 0, scheduledFor: null, priority: 0 });
  });

  it('turn runAt (Date or epoch ms) and delayMs into a delay and the requested start', () => {
    expect(resolveEnqueueOptions({ runAt: new Date(NOW + 2_000) }, NOW)).toMatchObject({
      delayMs: 2_000,
      scheduledFor: NOW + 2_000,
    });
    expect(resolveEnqueueOptions({ runAt: NOW + 5 }, NOW)).toMatchObject({ delayMs: 5, scheduledFor: NOW + 5 });
    expect(resolveEnqueueOptions({ delayMs: 1_500 }, NOW)).toMatchObject({ delayMs: 1_500, scheduledFor: NOW + 1_500 });
    // A time in the past means now (its requested start is still recorded).
    expect(resolveEnqueueOptions({ runAt: NOW - 10_000 }, NOW)).toMatchObject({
      delayMs: 0,
      scheduledFor: NOW - 10_000,
    });
  });

  it('map priorities to core values and keep the rest', () => {
    expect(
      resolveEnqueueOptions({ priority: 'high', maxAttempts: 7, queue: 'reports', idempotencyKey: 'k' }, NOW),
    ).toEqual({ queue: 'reports', delayMs: 0, scheduledFor: null, priority: 10, maxAttempts: 7, idempotencyKey: 'k' });
    expect(resolveEnqueueOptions({ priority: -1000 }, NOW).priority).toBe(-1000);
  });

  it.each([
    [{ runAt: NOW, delayMs: 1 }, '(options): give runAt or delayMs, not both'],
    [{ delayMs: -1 }, /^delayMs: /],
    [{ delayMs: 'soon' }, 'delayMs: must be a number of milliseconds'],
    [{ runAt: 'tomorrow' }, 'runAt: must be a valid Date or epoch milliseconds'],
    [{ priority: 'urgent' }, 'priority: must be "low", "medium", "high" or an integer in [-1000, 1000]'],
    [{ maxAttempts: 0 }, /^maxAttempts: /],
    [{ idempotencyKey: '' }, /^idempotencyKey: /],
    [{ queue: 'A' }, 'queue: is not a queue name ([a-z0-9][a-z0-9._-]{0,127}), e.g. "default"'],
    [{ delay: 5 }, /Unrecognized key: "delay"/],
  ])('refuse %j', (opts, issue) => {
    let err: unknown;
    try {
      resolveEnqueueOptions(opts as never, NOW);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidOptionsError);
    expect((err as InvalidOptionsError).where).toBe('enqueue');
    expect((err as InvalidOptionsError).issues).toEqual([
      typeof issue === 'string' ? issue : expect.stringMatching(issue),
    ]);
  });
});

describe('wait and list options', () => {
  it('default the wait to 60 s and refuse what a timer cannot hold', () => {
    expect(resolveWaitOptions(undefined)).toEqual({ timeoutMs: 60_000 });
    expect(resolveWaitOptions({ timeoutMs: 5 })).toEqual({ timeoutMs: 5 });
    expect(() => resolveWaitOptions({ timeoutMs: 2 ** 31 })).toThrow(/invalid waitForRun options: timeoutMs/);
  });

  it('check a listing query', () => {
    expect(resolveListOptions({ status: 'parked', limit: 10 })).toEqual({ status: 'parked', limit: 10 });
    expect(() => resolveListOptions({ status: 'done' as never })).toThrow(/invalid listRuns options: status/);
    expect(() => resolveListOptions({ limit: 1001 })).toThrow(/limit/);
  });
});
