import fc from 'fast-check';
import type { CronTrigger } from '../model/trigger.schema';
import { forgetCronSpans, nextCronSlot } from './cron-next-slot';
import { cronSlotsAfter } from './cron-schedule';
import { nextFire } from './next-fire';

/** What the memo must always answer: the first slot of a fresh computation. */
const fresh = (t: CronTrigger, afterMs: number) => {
  const r = cronSlotsAfter(t, afterMs).next();
  return r.done ? undefined : r.value;
};
const cron = (expr: string, tz: string): CronTrigger => ({ kind: 'cron', cron: expr, tz });
const at = (s: string) => Date.parse(s);

afterEach(() => forgetCronSpans());

describe('nextCronSlot: the memo answers what a fresh computation does', () => {
  // Zones with a spring-forward gap, a fall-back overlap, a 30-minute shift, and none.
  const zones = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'UTC', 'Asia/Kolkata'];
  const exprs = [
    '30 2 * * *',
    '0 * * * *',
    '*/20 1-3 * * *',
    '0 3 1 1 *',
    '15 */2 * * 0',
    '0 0 29 2 *',
    '*/7 * * * * *',
  ];
  // Around the 2025 DST changes of those zones, so spans cross a gap or an overlap.
  const around = [
    at('2025-03-08T00:00:00Z'),
    at('2025-03-29T20:00:00Z'),
    at('2025-10-04T12:00:00Z'),
    at('2025-11-01T20:00:00Z'),
  ];

  it('over random walks of afterMs, forwards, backwards and repeated, for one expression after another', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            tz: fc.constantFrom(...zones),
            expr: fc.constantFrom(...exprs),
            base: fc.constantFrom(...around),
            offsetMs: fc.integer({ min: 0, max: 3 * 86_400_000 }),
            // From the slot just answered, or just before it: the span's edges.
            fromLast: fc.constantFrom(undefined, 0, -1),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        (steps) => {
          forgetCronSpans();
          let last: number | undefined;
          for (const s of steps) {
            const t = cron(s.expr, s.tz);
            const afterMs = s.fromLast !== undefined && last !== undefined ? last + s.fromLast : s.base + s.offsetMs;
            last = nextCronSlot(t, afterMs);
            expect(last).toBe(fresh(t, afterMs));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('answers from the span up to, not at, the slot it remembers', () => {
    const t = cron('30 2 * * *', 'Europe/Berlin');
    const first = nextCronSlot(t, at('2025-03-29T12:00:00Z'))!;
    expect(new Date(first).toISOString()).toBe('2025-03-30T01:00:00.000Z'); // the gap's end
    expect(nextCronSlot(t, first - 1)).toBe(first);
    expect(nextCronSlot(t, first)).toBe(at('2025-03-31T00:30:00Z'));
    // Back before the span it remembers: computed again, not taken from the later span.
    expect(nextCronSlot(t, at('2025-03-20T12:00:00Z'))).toBe(at('2025-03-21T01:30:00Z'));
  });

  it('keeps expressions and zones apart', () => {
    const from = at('2025-06-01T00:00:00Z');
    expect(nextCronSlot(cron('0 3 * * *', 'UTC'), from)).toBe(at('2025-06-01T03:00:00Z'));
    expect(nextCronSlot(cron('0 3 * * *', 'Europe/Berlin'), from)).toBe(at('2025-06-01T01:00:00Z'));
    expect(nextCronSlot(cron('0 4 * * *', 'UTC'), from)).toBe(at('2025-06-01T04:00:00Z'));
  });

  it('is what nextFire answers for a lone cron trigger, and a routine with one, bounded or not', () => {
    const t = cron('0 3 * * *', 'Europe/Berlin');
    const from = at('2025-06-01T00:00:00Z');
    expect(nextFire(t, from)).toBe(at('2025-06-01T01:00:00Z'));
    expect(nextFire({ trigger: t }, from)).toBe(at('2025-06-01T01:00:00Z'));
    // startAt moves the first slot: the bounded path, not the span remembered just above.
    expect(nextFire({ trigger: t, startAt: '2025-06-05T00:00:00Z' }, from)).toBe(at('2025-06-05T01:00:00Z'));
    expect(nextFire({ trigger: t, endAt: '2025-06-01T00:30:00Z' }, from)).toBeUndefined();
  });
});
