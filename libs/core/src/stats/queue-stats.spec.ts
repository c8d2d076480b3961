import {
  emptyQueueBucket,
  latenessBucket,
  latenessQuantile,
  LATENESS_BOUNDS_MS,
  planQueueStats,
  QUEUE_STATS_HOURS,
  QUEUE_STATS_MINUTES,
  queueBucketsOf,
  queueStatsIncrements,
  summarizeQueueStats,
} from './queue-stats';

const M = 60_000;
const H = 60 * M;
const D = 24 * H;
/** A Thursday, 10:30:20 UTC. */
const NOW = Date.UTC(2026, 10, 26, 10, 30, 20);

/** What Redis would hold after these observations: span key → field → count. */
function store(obs: [number, Parameters<typeof queueStatsIncrements>[1]][]) {
  const spans = new Map<string, { res: string; start: number; hash: Record<string, string>; expireAt: number }>();
  for (const [at, o] of obs) {
    for (const inc of queueStatsIncrements(at, o)) {
      const k = `${inc.res.name}:${inc.spanStart}`;
      let s = spans.get(k);
      if (!s) spans.set(k, (s = { res: inc.res.name, start: inc.spanStart, hash: {}, expireAt: inc.expireAt }));
      s.hash[inc.field] = String(Number(s.hash[inc.field] ?? 0) + 1);
    }
  }
  return spans;
}

function read(spans: ReturnType<typeof store>, now: number, windowMs: number) {
  const plan = planQueueStats(now, windowMs);
  const hashes = plan.spans.map((start) => ({ start, hash: spans.get(`${plan.res.name}:${start}`)?.hash ?? {} }));
  return summarizeQueueStats(plan, queueBucketsOf(plan.res, hashes, plan.from, plan.to));
}

describe('queue run totals', () => {
  it('counts one observation in a minute bucket and an hour bucket, each in its span', () => {
    const incs = queueStatsIncrements(NOW, { counter: 'parked', latenessMs: 700 });
    expect(incs.map((i) => [i.res.name, new Date(i.spanStart).toISOString(), i.field])).toEqual([
      ['m', '2026-11-26T10:30:00.000Z', '0:p'],
      ['m', '2026-11-26T10:30:00.000Z', '0:l2'],
      ['h', '2026-11-26T06:00:00.000Z', '4:p'],
      ['h', '2026-11-26T06:00:00.000Z', '4:l2'],
    ]);
    // A span expires once it is older than its resolution keeps, whatever minute wrote it.
    expect(incs[0]!.expireAt).toBe(Date.UTC(2026, 10, 26, 10, 40) + 26 * H);
    expect(incs[2]!.expireAt).toBe(Date.UTC(2026, 10, 26, 12) + 8 * D);
  });

  it('keeps every span within the compact hash encoding (at most 128 fields)', () => {
    for (const res of [QUEUE_STATS_MINUTES, QUEUE_STATS_HOURS]) {
      const fields = new Set<string>();
      for (let at = 0; at < res.spanMs; at += res.stepMs)
        for (const c of ['succeeded', 'canceled', 'retried', 'parked'] as const)
          for (const l of [0, ...LATENESS_BOUNDS_MS, 1e9])
            queueStatsIncrements(at, { counter: c, latenessMs: l })
              .filter((i) => i.res === res)
              .forEach((i) => fields.add(i.field));
      expect(fields.size).toBeLessThanOrEqual(128);
    }
  });

  it('puts lateness in the bucket whose upper bound holds it', () => {
    expect([0, 50, 51, 1000, 1001, 600_000, 600_001].map(latenessBucket)).toEqual([0, 0, 1, 2, 3, 6, 7]);
  });

  it('estimates lateness percentiles inside their bucket, null when nothing started', () => {
    const h = emptyQueueBucket().lateness;
    expect(latenessQuantile(h, 0.5)).toBeNull();
    h[2] = 10; // ten starts between 250 ms and 1 s
    expect(latenessQuantile(h, 0.5)).toBe(625);
    expect(latenessQuantile(h, 1)).toBe(1000);
    h[7] = 90; // most over 10 min: the overflow answers its lower bound
    expect(latenessQuantile(h, 0.95)).toBe(600_000);
  });

  it('answers totals per window from minute buckets and leaves out what fell before it', () => {
    const spans = store([
      [NOW - 30 * M, { counter: 'succeeded' }],
      [NOW - 30 * M, { counter: 'retried' }],
      [NOW - 30 * M, { counter: 'parked', latenessMs: 10 }],
      [NOW - 2 * H, { counter: 'succeeded' }],
      [NOW - 23 * H, { counter: 'canceled' }],
      [NOW - 25 * H, { counter: 'succeeded' }],
    ]);
    const hour = read(spans, NOW, H);
    expect(hour.totals).toEqual({ processed: 3, failed: 2, parked: 1, succeeded: 1, canceled: 0, retried: 1 });
    expect(hour.latenessMs).toEqual({ p50: 25, p95: 48, p99: 50 });
    expect(read(spans, NOW, 24 * H).totals).toMatchObject({ processed: 5, failed: 2, parked: 1, canceled: 1 });
    // Past a day, from hour buckets: the 25 h old run counts in a week.
    expect(read(spans, NOW, 7 * D).totals.processed).toBe(6);
  });

  it('counts whole minutes at the window edges: the bucket holding the edge and the current one', () => {
    const edge = Date.UTC(2026, 10, 26, 9, 30, 59); // the minute of NOW − 1 h
    const before = Date.UTC(2026, 10, 26, 9, 29, 59);
    const spans = store([
      [edge, { counter: 'succeeded' }],
      [before, { counter: 'succeeded' }],
      [NOW, { counter: 'succeeded' }],
    ]);
    const r = read(spans, NOW, H);
    expect(new Date(r.from).toISOString()).toBe('2026-11-26T09:30:00.000Z');
    expect(r.totals.processed).toBe(2);
  });

  it('downsamples into at most 200 points whose step grows with the window, empty points included', () => {
    expect([H, 6 * H, 24 * H, 7 * D].map((w) => planQueueStats(NOW, w).stepMs)).toEqual([M, 5 * M, 15 * M, H]);
    const spans = store([
      [NOW - 20 * M, { counter: 'succeeded', latenessMs: 2000 }],
      [NOW - 19 * M, { counter: 'succeeded' }],
      [NOW - 3 * H, { counter: 'parked' }],
    ]);
    const day = read(spans, NOW, 24 * H);
    expect(day.points.length).toBeLessThanOrEqual(200);
    expect(day.points.length).toBe(97);
    const busy = day.points.filter((p) => p.processed > 0);
    expect(busy.map((p) => [new Date(p.at).toISOString(), p.processed, p.parked, p.latenessP50Ms])).toEqual([
      ['2026-11-26T07:30:00.000Z', 1, 1, null],
      ['2026-11-26T10:00:00.000Z', 2, 0, 3000],
    ]);
    const week = read(spans, NOW, 7 * D);
    expect(week.points).toHaveLength(169);
    expect(week.points.at(-1)!.processed).toBe(2);
  });

  it('reads only the spans a window touches', () => {
    expect(planQueueStats(NOW, H).spans).toHaveLength(7);
    expect(planQueueStats(NOW, 24 * H).spans).toHaveLength(145);
    expect(planQueueStats(NOW, 7 * D).spans).toHaveLength(29);
  });

  it('ignores fields it does not know and buckets outside the window', () => {
    const plan = planQueueStats(NOW, H);
    const b = queueBucketsOf(
      plan.res,
      [{ start: plan.spans[0]!, hash: { '0:x': '4', junk: '1', '0:s': 'x', '99:s': '3' } }],
      plan.from,
      plan.to,
    );
    expect(b.size).toBe(0);
  });
});
