import fc from 'fast-check';
import type { RunEvent } from './run-event';
import { applyTransition } from './run-status.machine';
import type { Run } from './run.schema';

const NOW = 1_749_996_000_000;
const run = (over: Partial<Run> = {}): Run => ({
  id: 'r-nightly-1',
  routine: 'nightly',
  jobType: 'noop',
  queue: 'default',
  source: 'schedule',
  scheduledFor: NOW,
  status: 'scheduled',
  attempt: 0,
  maxAttempts: 3,
  createdAt: NOW,
  updatedAt: NOW,
  ...over,
});
const err = { message: 'boom' };

describe('applyTransition', () => {
  it('walks the happy path scheduled → queued → running → succeeded', () => {
    let r = run();
    r = applyTransition(r, { type: 'enqueue', at: NOW + 1 }).run;
    expect(r).toMatchObject({ status: 'queued', queuedAt: NOW + 1 });
    r = applyTransition(r, { type: 'start', at: NOW + 2, attempt: 1, worker: 'w1' }).run;
    expect(r).toMatchObject({ status: 'running', attempt: 1, startedAt: NOW + 2, worker: 'w1' });
    r = applyTransition(r, { type: 'progress', at: NOW + 3, attempt: 1, progress: 50 }).run;
    expect(r).toMatchObject({ status: 'running', progress: 50 });
    r = applyTransition(r, { type: 'succeed', at: NOW + 4, attempt: 1, result: { ok: true } }).run;
    expect(r).toMatchObject({ status: 'succeeded', finishedAt: NOW + 4, result: { ok: true }, updatedAt: NOW + 4 });
  });

  it('retries back to queued, then parks, then an operator replays', () => {
    let r = run({ status: 'running', attempt: 1 });
    r = applyTransition(r, { type: 'retry', at: NOW, attempt: 1, error: err, nextAttemptAt: NOW + 1000 }).run;
    expect(r).toMatchObject({ status: 'queued', attempt: 1, nextAttemptAt: NOW + 1000, error: err });
    r = applyTransition(r, { type: 'start', at: NOW + 1000, attempt: 2 }).run;
    expect(r.nextAttemptAt).toBeUndefined();
    r = applyTransition(r, { type: 'park', at: NOW + 2000, attempt: 2, reason: 'attempts-exhausted', error: err }).run;
    expect(r).toMatchObject({ status: 'parked', reason: 'attempts-exhausted', finishedAt: NOW + 2000 });
    r = applyTransition(r, { type: 'replay', at: NOW + 3000 }).run;
    expect(r).toMatchObject({ status: 'queued', attempt: 0, source: 'replay', queuedAt: NOW + 3000 });
    expect(r.finishedAt).toBeUndefined();
    expect(r.reason).toBeUndefined();
  });

  it.each<[string, Partial<Run>, RunEvent, Partial<Run>]>([
    [
      'skip a scheduled fire',
      {},
      { type: 'skip', at: NOW, reason: 'overlap-forbid' },
      { status: 'skipped', reason: 'overlap-forbid' },
    ],
    [
      'cancel a running run',
      { status: 'running', attempt: 1 },
      { type: 'cancel', at: NOW, reason: 'replaced' },
      { status: 'canceled', reason: 'replaced' },
    ],
    ['cancel without reason', { status: 'queued' }, { type: 'cancel', at: NOW }, { status: 'canceled' }],
    [
      'fail a running run',
      { status: 'running', attempt: 1 },
      { type: 'fail', at: NOW, attempt: 1, error: err },
      { status: 'failed', error: err },
    ],
    [
      'give up a parked run',
      { status: 'parked', attempt: 3 },
      { type: 'fail', at: NOW, error: err },
      { status: 'failed' },
    ],
    ['start straight from scheduled', {}, { type: 'start', at: NOW, attempt: 1 }, { status: 'running', attempt: 1 }],
    [
      'park a queued run (lease lost before start)',
      { status: 'queued', attempt: 3 },
      { type: 'park', at: NOW, attempt: 3, reason: 'lease-expired' },
      { status: 'parked' },
    ],
    [
      'replay a failed run',
      { status: 'failed', attempt: 2 },
      { type: 'replay', at: NOW },
      { status: 'queued', attempt: 0 },
    ],
  ])('%s', (_name, given, event, expected) => {
    const r = applyTransition(run(given), event);
    expect(r.changed).toBe(true);
    expect(r.run).toMatchObject(expected);
  });

  it.each<[string, Partial<Run>, RunEvent, string]>([
    ['duplicate start', { status: 'running', attempt: 1 }, { type: 'start', at: NOW, attempt: 1 }, 'duplicate'],
    ['duplicate enqueue', { status: 'queued' }, { type: 'enqueue', at: NOW }, 'duplicate'],
    ['duplicate success', { status: 'succeeded', attempt: 1 }, { type: 'succeed', at: NOW, attempt: 1 }, 'duplicate'],
    ['duplicate cancel', { status: 'canceled' }, { type: 'cancel', at: NOW }, 'duplicate'],
    [
      'duplicate retry',
      { status: 'queued', attempt: 1 },
      { type: 'retry', at: NOW, attempt: 1, error: err, nextAttemptAt: NOW },
      'duplicate',
    ],
    [
      'late success of an attempt already retried',
      { status: 'queued', attempt: 1 },
      { type: 'succeed', at: NOW, attempt: 1 },
      'stale',
    ],
    [
      'success of an older attempt',
      { status: 'running', attempt: 2 },
      { type: 'succeed', at: NOW, attempt: 1 },
      'stale',
    ],
    [
      'progress of an older attempt',
      { status: 'running', attempt: 2 },
      { type: 'progress', at: NOW, attempt: 1, progress: 1 },
      'stale',
    ],
    [
      'start of a later attempt than the next',
      { status: 'queued', attempt: 1 },
      { type: 'start', at: NOW, attempt: 3 },
      'out-of-order',
    ],
    ['old start after a retry', { status: 'queued', attempt: 2 }, { type: 'start', at: NOW, attempt: 2 }, 'stale'],
    [
      'anything on a succeeded run',
      { status: 'succeeded', attempt: 1 },
      { type: 'fail', at: NOW, error: err },
      'final',
    ],
    ['cancel of a finished run', { status: 'failed', attempt: 1 }, { type: 'cancel', at: NOW }, 'final'],
    ['replay of a queued run', { status: 'queued' }, { type: 'replay', at: NOW }, 'stale'],
    ['skip of a running run', { status: 'running', attempt: 1 }, { type: 'skip', at: NOW, reason: 'x' }, 'stale'],
  ])('ignores %s', (_name, given, event, ignored) => {
    const before = run(given);
    const r = applyTransition(before, event);
    expect(r).toEqual({ run: before, changed: false, ignored });
  });

  it('never mutates its input and never moves updatedAt backwards', () => {
    const before = run({ updatedAt: NOW + 10 });
    const copy = structuredClone(before);
    const r = applyTransition(before, { type: 'enqueue', at: NOW });
    expect(before).toEqual(copy);
    expect(r.run.updatedAt).toBe(NOW + 10);
  });

  it('is idempotent: applying any event sequence twice per event equals applying it once', () => {
    const eventArb: fc.Arbitrary<RunEvent> = fc.oneof(
      fc.constant<RunEvent>({ type: 'enqueue', at: NOW }),
      fc.integer({ min: 1, max: 4 }).map((attempt): RunEvent => ({ type: 'start', at: NOW, attempt })),
      fc.integer({ min: 1, max: 4 }).map((attempt): RunEvent => ({ type: 'succeed', at: NOW, attempt })),
      fc
        .integer({ min: 1, max: 4 })
        .map((attempt): RunEvent => ({ type: 'retry', at: NOW, attempt, error: err, nextAttemptAt: NOW })),
      fc.integer({ min: 1, max: 4 }).map((attempt): RunEvent => ({ type: 'park', at: NOW, attempt, reason: 'x' })),
      fc.constant<RunEvent>({ type: 'cancel', at: NOW }),
      fc.constant<RunEvent>({ type: 'skip', at: NOW, reason: 'x' }),
    );
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 12 }), (events) => {
        let once = run();
        let twice = run();
        for (const e of events) {
          once = applyTransition(once, e).run;
          twice = applyTransition(applyTransition(twice, e).run, e).run;
        }
        expect(twice).toEqual(once);
        expect(once.attempt).toBeLessThanOrEqual(4);
      }),
    );
  });
});
