/**
 * Per-queue run totals kept as bounded, downsampled aggregates: counters and a small lateness
 * histogram per minute (kept about 26 h) and per hour (kept about 8 days), summed over a window
 * and regrouped into a chart's points when asked. The cost of a read depends on the window, never
 * on how many runs there were. Pure: no clock, no storage.
 *
 * Storage shape: one hash per queue, resolution and span (ten minutes of minute buckets, six
 * hours of hour buckets), its fields `<bucket index in the span>:<what>`. A span holds at most
 * 10 × 12 = 120 (or 6 × 12 = 72) fields, so Redis keeps every such hash in its compact listpack
 * encoding (up to 128 entries by default), and each expires at a fixed instant once its span is
 * older than the resolution keeps.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** What a worker counts as runs settle on it: attempts that succeeded, were canceled, will retry, or parked the run. */
export const QUEUE_STATS_COUNTERS = ['succeeded', 'canceled', 'retried', 'parked'] as const;
export type QueueStatsCounter = (typeof QUEUE_STATS_COUNTERS)[number];

const COUNTER_FIELD: Record<QueueStatsCounter, string> = { succeeded: 's', canceled: 'c', retried: 'r', parked: 'p' };
const FIELD_COUNTER = Object.fromEntries(Object.entries(COUNTER_FIELD).map(([k, v]) => [v, k])) as Record<
  string,
  QueueStatsCounter
>;

/**
 * Upper bounds (ms) of the lateness histogram's buckets, a subset of the fire-lateness metric's;
 * a last bucket holds everything above 10 min. Fixed, so buckets of any span and queue add up.
 */
export const LATENESS_BOUNDS_MS = [50, 250, 1_000, 5_000, 30_000, 120_000, 600_000] as const;
const LATENESS_BUCKETS = LATENESS_BOUNDS_MS.length + 1;

export interface QueueStatsResolution {
  /** In keys: `m` or `h`. */
  readonly name: 'm' | 'h';
  readonly stepMs: number;
  /** One hash holds this much time of buckets. */
  readonly spanMs: number;
  /** A span expires this long after it ends. */
  readonly keepMs: number;
}

export const QUEUE_STATS_MINUTES: QueueStatsResolution = {
  name: 'm',
  stepMs: MINUTE,
  spanMs: 10 * MINUTE,
  keepMs: 26 * HOUR,
};
export const QUEUE_STATS_HOURS: QueueStatsResolution = {
  name: 'h',
  stepMs: HOUR,
  spanMs: 6 * HOUR,
  keepMs: 8 * 24 * HOUR,
};
export const QUEUE_STATS_RESOLUTIONS = [QUEUE_STATS_MINUTES, QUEUE_STATS_HOURS] as const;

/** Windows up to this are answered from minute buckets; longer ones from hour buckets. */
export const QUEUE_STATS_MINUTE_WINDOW_MS = 24 * HOUR;
/** A chart has at most this many points: the step grows with the window. */
export const QUEUE_STATS_MAX_POINTS = 200;
const STEPS_MS = [MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR];

const floorTo = (at: number, step: number): number => Math.floor(at / step) * step;

/** One settled attempt (a counter), or a first start's lateness, or both. */
export interface QueueObservation {
  counter?: QueueStatsCounter;
  latenessMs?: number;
}

/** The lateness histogram bucket of a value (ms). */
export function latenessBucket(ms: number): number {
  const i = LATENESS_BOUNDS_MS.findIndex((b) => ms <= b);
  return i === -1 ? LATENESS_BOUNDS_MS.length : i;
}

/** One hash-field increment: which span of which resolution, when that span expires, which field. */
export interface QueueStatsIncrement {
  res: QueueStatsResolution;
  spanStart: number;
  expireAt: number;
  field: string;
}

/** The increments one observation at `at` (epoch ms) makes, at every resolution. */
export function queueStatsIncrements(at: number, obs: QueueObservation): QueueStatsIncrement[] {
  const what: string[] = [];
  if (obs.counter) what.push(COUNTER_FIELD[obs.counter]);
  if (obs.latenessMs !== undefined) what.push(`l${latenessBucket(obs.latenessMs)}`);
  const out: QueueStatsIncrement[] = [];
  for (const res of QUEUE_STATS_RESOLUTIONS) {
    const spanStart = floorTo(at, res.spanMs);
    const index = Math.floor((at - spanStart) / res.stepMs);
    for (const w of what) {
      out.push({ res, spanStart, expireAt: spanStart + res.spanMs + res.keepMs, field: `${index}:${w}` });
    }
  }
  return out;
}

/** One bucket's (or point's, or window's) aggregate. */
export interface QueueBucket {
  counts: Record<QueueStatsCounter, number>;
  /** Count per lateness bucket (LATENESS_BOUNDS_MS, then the overflow). */
  lateness: number[];
}

export const emptyQueueBucket = (): QueueBucket => ({
  counts: { succeeded: 0, canceled: 0, retried: 0, parked: 0 },
  lateness: new Array<number>(LATENESS_BUCKETS).fill(0),
});

export function addQueueBucket(into: QueueBucket, b: QueueBucket): QueueBucket {
  for (const c of QUEUE_STATS_COUNTERS) into.counts[c] += b.counts[c];
  b.lateness.forEach((n, i) => (into.lateness[i]! += n));
  return into;
}

/** How a window is read: at which resolution, from which bucket, in chart points of which step. */
export interface QueueStatsPlan {
  res: QueueStatsResolution;
  /** First bucket counted (epoch ms): the window covers whole buckets from here to now. */
  from: number;
  to: number;
  stepMs: number;
  /** The spans (hash starts) to read, ascending. */
  spans: number[];
}

/** Plans the read of a `windowMs` window ending at `now`. */
export function planQueueStats(now: number, windowMs: number): QueueStatsPlan {
  const res = windowMs <= QUEUE_STATS_MINUTE_WINDOW_MS ? QUEUE_STATS_MINUTES : QUEUE_STATS_HOURS;
  const from = floorTo(now - windowMs + 1, res.stepMs);
  const stepMs =
    STEPS_MS.find((s) => s >= res.stepMs && windowMs / s <= QUEUE_STATS_MAX_POINTS) ?? STEPS_MS[STEPS_MS.length - 1]!;
  const spans: number[] = [];
  for (let s = floorTo(from, res.spanMs); s <= now; s += res.spanMs) spans.push(s);
  return { res, from, to: now, stepMs, spans };
}

/**
 * The buckets (start → aggregate) of stored spans, as Redis answers them (field → count as text),
 * keeping those in `[from, to]`; unknown fields are ignored.
 */
export function queueBucketsOf(
  res: QueueStatsResolution,
  spans: { start: number; hash: Record<string, string> }[],
  from: number,
  to: number,
): Map<number, QueueBucket> {
  const out = new Map<number, QueueBucket>();
  for (const { start, hash } of spans) {
    for (const [field, raw] of Object.entries(hash)) {
      const m = /^(\d+):(?:([scrp])|l(\d))$/.exec(field);
      const n = Number(raw);
      if (!m || !Number.isFinite(n) || n <= 0) continue;
      const at = start + Number(m[1]) * res.stepMs;
      if (at < from || at > to) continue;
      let b = out.get(at);
      if (!b) out.set(at, (b = emptyQueueBucket()));
      if (m[2]) b.counts[FIELD_COUNTER[m[2]]!] += n;
      else if (Number(m[3]) < LATENESS_BUCKETS) b.lateness[Number(m[3])]! += n;
    }
  }
  return out;
}

/**
 * The q-quantile (0 < q ≤ 1) of a lateness histogram in ms, interpolated linearly inside its
 * bucket as Prometheus' histogram_quantile does; the overflow bucket answers its lower bound.
 * Null when the histogram is empty.
 */
export function latenessQuantile(hist: number[], q: number): number | null {
  const total = hist.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < hist.length; i++) {
    const n = hist[i]!;
    if (n > 0 && seen + n >= rank) {
      if (i >= LATENESS_BOUNDS_MS.length) return LATENESS_BOUNDS_MS[LATENESS_BOUNDS_MS.length - 1]!;
      const lo = i === 0 ? 0 : LATENESS_BOUNDS_MS[i - 1]!;
      const hi = LATENESS_BOUNDS_MS[i]!;
      return Math.round(lo + (hi - lo) * ((rank - seen) / n));
    }
    seen += n;
  }
  return null;
}

/** The totals an operator reads: attempts processed, failed (retried or parked), runs parked. */
export interface QueueTotals {
  processed: number;
  failed: number;
  parked: number;
  succeeded: number;
  canceled: number;
  retried: number;
}

export function queueTotalsOf(b: QueueBucket): QueueTotals {
  const { succeeded, canceled, retried, parked } = b.counts;
  return {
    processed: succeeded + canceled + retried + parked,
    failed: retried + parked,
    parked,
    succeeded,
    canceled,
    retried,
  };
}

export interface QueueStatsPoint {
  /** Start of the point (epoch ms). */
  at: number;
  processed: number;
  failed: number;
  parked: number;
  latenessP50Ms: number | null;
  latenessP95Ms: number | null;
}

/** A window's answer: totals, lateness percentiles and the chart's points (every step, empty ones too). */
export interface QueueStatsSummary {
  from: number;
  to: number;
  stepMs: number;
  totals: QueueTotals;
  latenessMs: { p50: number | null; p95: number | null; p99: number | null };
  points: QueueStatsPoint[];
}

/** Sums buckets into the window's totals and regroups them into points of `plan.stepMs` (downsampling). */
export function summarizeQueueStats(plan: QueueStatsPlan, buckets: Map<number, QueueBucket>): QueueStatsSummary {
  const all = emptyQueueBucket();
  const byPoint = new Map<number, QueueBucket>();
  for (let at = floorTo(plan.from, plan.stepMs); at <= plan.to; at += plan.stepMs) byPoint.set(at, emptyQueueBucket());
  for (const [at, b] of buckets) {
    addQueueBucket(all, b);
    const p = byPoint.get(floorTo(at, plan.stepMs));
    if (p) addQueueBucket(p, b);
  }
  const points = [...byPoint].map(([at, b]) => {
    const t = queueTotalsOf(b);
    return {
      at,
      processed: t.processed,
      failed: t.failed,
      parked: t.parked,
      latenessP50Ms: latenessQuantile(b.lateness, 0.5),
      latenessP95Ms: latenessQuantile(b.lateness, 0.95),
    };
  });
  return {
    from: plan.from,
    to: plan.to,
    stepMs: plan.stepMs,
    totals: queueTotalsOf(all),
    latenessMs: {
      p50: latenessQuantile(all.lateness, 0.5),
      p95: latenessQuantile(all.lateness, 0.95),
      p99: latenessQuantile(all.lateness, 0.99),
    },
    points,
  };
}
