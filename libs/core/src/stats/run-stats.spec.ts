import {
  bucketUpperMs,
  histogramBucket,
  histogramQuantile,
  MAX_HISTOGRAM_BUCKET,
  mergeStats,
  parseStatsWindow,
  percentilesOf,
  statsBucketsFor,
  statsIncrements,
  successRatio,
} from './run-stats';

const H = 3_600_000;

describe('routine run statistics', () => {
  it('puts every value in the bucket whose bounds hold it', () => {
    for (const ms of [1.5, 2, 7, 100, 999, 1000, 61_234, 3_600_000]) {
      const i = histogramBucket(ms);
      expect(bucketUpperMs(i)).toBeGreaterThanOrEqual(ms - 1e-6);
      expect(bucketUpperMs(i - 1)).toBeLessThan(ms);
    }
    expect(histogramBucket(0)).toBe(0);
    expect(histogramBucket(-20)).toBe(0);
    expect(histogramBucket(Number.NaN)).toBe(0);
    expect(histogramBucket(1e15)).toBe(MAX_HISTOGRAM_BUCKET);
  });

  it('counts one observation as short hash-field increments', () => {
    expect(statsIncrements({ status: 'succeeded', durationMs: 1000 })).toEqual({ 'n:succeeded': 1, d40: 1 });
    expect(statsIncrements({ latenessMs: 0 })).toEqual({ l0: 1 });
    expect(statsIncrements({ status: 'skipped' })).toEqual({ 'n:skipped': 1 });
  });

  it('merges hourly aggregates and ignores fields it does not know', () => {
    const merged = mergeStats([
      { 'n:succeeded': '3', 'n:parked': '1', d40: '4', l0: '2', junk: '9', 'n:weird': '5' },
      { 'n:succeeded': '2', 'n:skipped': '1', d40: '1', d44: '1', l0: 'x' },
    ]);
    expect(merged.counts).toEqual({ succeeded: 5, parked: 1, canceled: 0, skipped: 1 });
    expect([...merged.duration]).toEqual([
      [40, 5],
      [44, 1],
    ]);
    expect([...merged.lateness]).toEqual([[0, 2]]);
  });

  it('estimates percentiles within one bucket of the true value', () => {
    const values = Array.from({ length: 1000 }, (_, i) => 10 + i * 5); // 10 … 5005 ms
    const hist = mergeStats([
      values.reduce<Record<string, string>>((h, v) => {
        const f = `d${histogramBucket(v)}`;
        h[f] = String(Number(h[f] ?? 0) + 1);
        return h;
      }, {}),
    ]).duration;
    const truth = (q: number) => values[Math.ceil(q * values.length) - 1]!;
    for (const q of [0.5, 0.95, 0.99]) {
      const est = histogramQuantile(hist, q)!;
      expect(est / truth(q)).toBeGreaterThan(1 / 1.19);
      expect(est / truth(q)).toBeLessThan(1.19);
    }
    expect(percentilesOf(new Map())).toEqual({ p50: null, p95: null, p99: null });
    expect(histogramQuantile(new Map([[0, 4]]), 0.5)).toBe(1);
  });

  it('counts success over runs that ran, none when nothing ran', () => {
    expect(successRatio({ succeeded: 3, parked: 1, canceled: 5, skipped: 9 })).toBe(0.75);
    expect(successRatio({ succeeded: 0, parked: 0, canceled: 2, skipped: 1 })).toBeNull();
  });

  it('reads the hours a window touches, the current one included', () => {
    const now = 10 * H + 5;
    expect(statsBucketsFor(now, H)).toEqual([9 * H, 10 * H]);
    expect(statsBucketsFor(10 * H, 2 * H)).toEqual([8 * H, 9 * H, 10 * H]);
    expect(statsBucketsFor(now, 7 * 24 * H)).toHaveLength(169);
  });

  it('parses windows between an hour and a week, saying why others are refused', () => {
    expect(parseStatsWindow('24h')).toEqual({ ok: true, ms: 24 * H });
    expect(parseStatsWindow('90m')).toEqual({ ok: true, ms: 1.5 * H });
    expect(parseStatsWindow('7d')).toEqual({ ok: true, ms: 7 * 24 * H });
    expect(parseStatsWindow('15m')).toEqual({ ok: false, error: 'must be at least 1h (stats are kept per hour)' });
    expect(parseStatsWindow('8d')).toMatchObject({ ok: false, error: expect.stringContaining('at most 7d') });
    expect(parseStatsWindow('1 day')).toMatchObject({ ok: false, error: expect.stringContaining('e.g. "24h"') });
  });
});
