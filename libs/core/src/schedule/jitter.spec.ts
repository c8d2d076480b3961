import { parseBundle } from '../model/bundle.schema';
import { catchUpOne } from '../policy/catch-up.policy';
import { jitterLimitMs, jitterOffsetMs, MAX_JITTER_MS, plannedStart } from './jitter';

const HOUR = 3_600_000;
const slot = Date.UTC(2026, 0, 1, 12);

describe('jitterOffsetMs', () => {
  it('is the same for the same routine and slot, and 0 without jitter', () => {
    expect(jitterOffsetMs('nightly', slot, 60_000)).toBe(jitterOffsetMs('nightly', slot, 60_000));
    expect(jitterOffsetMs('nightly', slot, 0)).toBe(0);
    expect(plannedStart({ name: 'nightly' }, slot)).toBe(slot);
  });

  it('gives each slot of a routine its own offset, always in [0, jitterMs)', () => {
    const offsets = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const o = jitterOffsetMs('nightly', slot + i * HOUR, HOUR);
      expect(o).toBeGreaterThanOrEqual(0);
      expect(o).toBeLessThan(HOUR);
      offsets.add(o);
    }
    expect(offsets.size).toBeGreaterThan(190);
    for (const j of [2, 3, 7, 1000]) {
      for (let i = 0; i < 100; i++) expect(jitterOffsetMs(`r${i}`, slot, j)).toBeLessThan(j);
    }
  });

  it('spreads a thousand routines of the same slot roughly evenly over the window', () => {
    const window = 60_000;
    const buckets = new Array<number>(10).fill(0);
    const starts = new Set<number>();
    for (let i = 0; i < 1000; i++) {
      const o = jitterOffsetMs(`report-${i}`, slot, window);
      buckets[Math.floor((o / window) * 10)]!++;
      starts.add(o);
    }
    // 100 expected per tenth; a uniform draw stays within ±40 with overwhelming odds.
    for (const n of buckets) expect(Math.abs(n - 100)).toBeLessThan(40);
    expect(starts.size).toBeGreaterThan(950);
  });

  it('names that differ by one character land far apart', () => {
    const a = jitterOffsetMs('job-1', slot, HOUR);
    const b = jitterOffsetMs('job-2', slot, HOUR);
    expect(Math.abs(a - b)).toBeGreaterThan(1000);
  });
});

describe('jitterMs bounds', () => {
  const routine = (over: Record<string, unknown>) => ({
    name: 'r',
    jobType: 'noop',
    queue: 'q',
    trigger: { kind: 'cron', cron: '0 * * * *' },
    ...over,
  });
  const parse = (over: Record<string, unknown>) => parseBundle({ queues: [{ name: 'q' }], routines: [routine(over)] });

  it('are at most an hour and at most the smallest gap between slots', () => {
    expect(jitterLimitMs({ kind: 'cron', cron: '*/5 * * * *' })).toBe(5 * 60_000);
    expect(jitterLimitMs({ kind: 'cron', cron: '0 3 * * *' })).toBe(MAX_JITTER_MS);
    expect(jitterLimitMs({ kind: 'interval', everyMs: 10_000 })).toBe(10_000);
    expect(parse({ jitterMs: HOUR }).ok).toBe(true);
    expect(parse({}).ok).toBe(true);
  });

  it('name the field, the value and the limit', () => {
    const over = parse({ jitterMs: HOUR + 1, trigger: { kind: 'cron', cron: '0 3 * * *' } });
    expect(over.ok).toBe(false);
    expect(!over.ok && over.errors.join('\n')).toMatch(/routines\[r\]\.jitterMs: .*3600001.*3600000/);
    const gap = parse({ jitterMs: 301_000, trigger: { kind: 'cron', cron: '*/5 * * * *' } });
    expect(!gap.ok && gap.errors.join('\n')).toBe(
      "routines[r].jitterMs: jitterMs 301000 is over 300000 ms, the trigger's smallest gap between slots; use jitterMs in [0, 300000]",
    );
    const negative = parse({ jitterMs: -1 });
    expect(!negative.ok && negative.errors).toEqual([
      'routines[r].jitterMs: jitterMs -1 is negative; use jitterMs in [0, 3600000]',
    ]);
    expect(parse({ jitterMs: 1.5 }).ok).toBe(false);
  });

  it('of a triggers list are at most the smallest gap of the merged stream', () => {
    // Each trigger alone allows an hour; merged, 08:00 and 08:10 are ten minutes apart.
    const triggers = [
      { kind: 'cron', cron: '0 8 * * *' },
      { kind: 'cron', cron: '10 8 * * *' },
    ];
    expect(parse({ trigger: undefined, triggers, jitterMs: 600_000 }).ok).toBe(true);
    const over = parse({ trigger: undefined, triggers, jitterMs: 600_001 });
    expect(!over.ok && over.errors).toEqual([
      "routines[r].jitterMs: jitterMs 600001 is over 600000 ms, the triggers' smallest gap between slots; use jitterMs in [0, 600000]",
    ]);
  });
});

describe('lateness of a jittered slot', () => {
  it('counts from its planned start, so its jitter is never read as a misfire', () => {
    const startOf = (s: number) => s + 50 * 60_000;
    const at = (now: number) => catchUpOne(slot, { now, policy: 'skip', misfireGraceMs: 60_000, startOf });
    expect(at(slot + 50 * 60_000 + 30_000)).toEqual({ fire: { slot, source: 'schedule' } });
    expect(at(slot + 50 * 60_000 + 61_000)).toEqual({ skip: { slot, reason: 'catch-up-skip' } });
    expect(catchUpOne(slot, { now: slot + 50 * 60_000, policy: 'skip', misfireGraceMs: 60_000 })).toEqual({
      skip: { slot, reason: 'catch-up-skip' },
    });
  });
});
