import { Cron } from 'croner';
import fc from 'fast-check';
import { checkCron } from '../model/cron-expression';
import { zoneOffsetMs } from '../time/time-zone';
import { nextFire } from './next-fire';

/**
 * Differential test: our cron next-fire (cron-parser over wall-clock time + our DST mapping) must agree with an
 * independent implementation, croner, for random expressions and zones — away from DST transitions, where the
 * two are allowed to differ by policy.
 */
const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'America/Sao_Paulo',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Asia/Tokyo',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Pacific/Auckland',
];
const SIX_HOURS = 6 * 3_600_000;
const HORIZON = 60 * 86_400_000;

function field(min: number, max: number): fc.Arbitrary<string> {
  const n = fc.integer({ min, max });
  const range = fc.tuple(n, n).map(([a, b]) => (a <= b ? `${a}-${b}` : `${b}-${a}`));
  return fc.oneof(
    { arbitrary: fc.constant('*'), weight: 4 },
    { arbitrary: n.map(String), weight: 3 },
    { arbitrary: range, weight: 2 },
    {
      arbitrary: fc.integer({ min: 2, max: Math.max(2, Math.floor((max - min) / 2)) }).map((s) => `*/${s}`),
      weight: 2,
    },
    { arbitrary: fc.tuple(range, fc.integer({ min: 2, max: 5 })).map(([r, s]) => `${r}/${s}`), weight: 1 },
    { arbitrary: fc.uniqueArray(n, { minLength: 2, maxLength: 4 }).map((xs) => xs.join(',')), weight: 2 },
  );
}

const exprArb = fc
  .tuple(fc.option(field(0, 59), { freq: 3 }), field(0, 59), field(0, 23), field(1, 28), field(1, 12), field(0, 6))
  .map(([sec, ...rest]) => (sec === null ? rest : [sec, ...rest]).join(' '));

function offsetsStable(tz: string, from: number, to: number): boolean {
  const start = zoneOffsetMs(from, tz);
  for (let t = from; t < to + SIX_HOURS; t += SIX_HOURS) {
    if (zoneOffsetMs(Math.min(t, to), tz) !== start) return false;
  }
  return true;
}

describe('cron next-fire vs croner', () => {
  it('agrees on random expressions and zones outside DST transitions', () => {
    let compared = 0;
    fc.assert(
      fc.property(
        exprArb,
        fc.constantFrom(...ZONES),
        fc.integer({ min: Date.parse('2000-01-01T00:00:00Z'), max: Date.parse('2035-12-31T00:00:00Z') }),
        (expr, tz, from) => {
          expect(checkCron(expr)).toMatchObject({ ok: true });
          const ours = nextFire({ kind: 'cron', cron: expr, tz }, from);
          const theirs = new Cron(expr, { timezone: tz }).nextRun(new Date(from))?.getTime();
          const latest = Math.max(ours ?? from, theirs ?? from);
          fc.pre(ours !== undefined && theirs !== undefined && latest - from < HORIZON);
          fc.pre(offsetsStable(tz, from, latest));
          compared++;
          expect({ expr, tz, at: new Date(ours as number).toISOString() }).toEqual({
            expr,
            tz,
            at: new Date(theirs as number).toISOString(),
          });
        },
      ),
      { numRuns: 600 },
    );
    expect(compared).toBeGreaterThan(300);
  });
});
