/**
 * Per-routine run statistics kept as bounded aggregates: one small record per routine and hour
 * (counts by final status, and log-spaced histograms of duration and lateness), merged over a
 * window when asked. Percentiles are estimated from the histograms, so their error is bounded by a
 * bucket's width (about 19 %), and the cost of a read never depends on how many runs there were.
 * Pure: no clock, no storage.
 */

/** Width of one aggregate (epoch-aligned hours). */
export const STATS_BUCKET_MS = 3_600_000;
/** Longest window a stats query may cover; aggregates older than this expire. */
export const STATS_MAX_WINDOW_MS = 7 * 24 * STATS_BUCKET_MS;
/** Shortest window (one aggregate). */
export const STATS_MIN_WINDOW_MS = STATS_BUCKET_MS;

/** Final statuses the aggregates count (`failed` is never a run's end in Drover; parked is). */
export const STATS_STATUSES = ['succeeded', 'parked', 'canceled', 'skipped'] as const;
export type StatsStatus = (typeof STATS_STATUSES)[number];

/** Histogram buckets per doubling: bucket i holds values in (2^((i-1)/4), 2^(i/4)] ms. */
const PER_DOUBLING = 4;
/** Highest bucket: 2^32 ms ≈ 50 days; anything longer lands in it. */
export const MAX_HISTOGRAM_BUCKET = 32 * PER_DOUBLING;

/** The histogram bucket of a value in ms (values up to 1 ms, negatives included, are bucket 0). */
export function histogramBucket(ms: number): number {
  if (!(ms > 1)) return 0;
  return Math.min(MAX_HISTOGRAM_BUCKET, Math.ceil(PER_DOUBLING * Math.log2(ms) - 1e-9));
}

/** Upper bound (ms) of bucket `i`. */
export const bucketUpperMs = (i: number): number => 2 ** (i / PER_DOUBLING);

/** The start (epoch ms) of the aggregate `at` falls in. */
export const statsBucketOf = (at: number): number => Math.floor(at / STATS_BUCKET_MS) * STATS_BUCKET_MS;

/** One observation of a routine's run: a final status (with its duration), or a start's lateness. */
export interface StatsObservation {
  status?: StatsStatus;
  durationMs?: number;
  latenessMs?: number;
}

/**
 * The hash-field increments one observation makes: `n:<status>` counts, `d<i>` and `l<i>`
 * histogram buckets of duration and lateness. Field names are short: they are stored per routine and hour.
 */
export function statsIncrements(obs: StatsObservation): Record<string, number> {
  const out: Record<string, number> = {};
  if (obs.status) out[`n:${obs.status}`] = 1;
  if (obs.durationMs !== undefined) out[`d${histogramBucket(obs.durationMs)}`] = 1;
  if (obs.latenessMs !== undefined) out[`l${histogramBucket(obs.latenessMs)}`] = 1;
  return out;
}

/** Aggregates merged over a window. */
export interface MergedStats {
  counts: Record<StatsStatus, number>;
  /** Bucket index → count. */
  duration: Map<number, number>;
  lateness: Map<number, number>;
}

/** Merges stored aggregates (hash field → count as text, as Redis answers); unknown fields are ignored. */
export function mergeStats(hashes: Record<string, string>[]): MergedStats {
  const counts = Object.fromEntries(STATS_STATUSES.map((s) => [s, 0])) as Record<StatsStatus, number>;
  const duration = new Map<number, number>();
  const lateness = new Map<number, number>();
  for (const h of hashes) {
    for (const [field, raw] of Object.entries(h)) {
      const n = Number(raw);
      if (!Number.isFinite(n) || n <= 0) continue;
      if (field.startsWith('n:')) {
        const status = field.slice(2) as StatsStatus;
        if (status in counts) counts[status] += n;
        continue;
      }
      const m = /^([dl])(\d+)$/.exec(field);
      if (!m) continue;
      const hist = m[1] === 'd' ? duration : lateness;
      const i = Number(m[2]);
      hist.set(i, (hist.get(i) ?? 0) + n);
    }
  }
  return { counts, duration, lateness };
}

/**
 * The q-quantile (0 < q ≤ 1) of a histogram in ms, interpolated log-linearly inside its bucket;
 * null when the histogram is empty. Never off by more than one bucket's width.
 */
export function histogramQuantile(hist: Map<number, number>, q: number): number | null {
  const total = [...hist.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const i of [...hist.keys()].sort((a, b) => a - b)) {
    const n = hist.get(i)!;
    if (seen + n >= rank) {
      if (i === 0) return 1;
      const lo = Math.log2(bucketUpperMs(i - 1));
      const hi = Math.log2(bucketUpperMs(i));
      const frac = (rank - seen) / n;
      return Math.round(2 ** (lo + (hi - lo) * frac));
    }
    seen += n;
  }
  return null;
}

export interface Percentiles {
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

export const percentilesOf = (hist: Map<number, number>): Percentiles => ({
  p50: histogramQuantile(hist, 0.5),
  p95: histogramQuantile(hist, 0.95),
  p99: histogramQuantile(hist, 0.99),
});

/**
 * Succeeded over the runs that ended by running (succeeded + parked); null when none did.
 * Skipped and canceled runs say nothing about whether the routine's work succeeds.
 */
export function successRatio(counts: Record<StatsStatus, number>): number | null {
  const ran = counts.succeeded + counts.parked;
  return ran === 0 ? null : counts.succeeded / ran;
}

/** The aggregate starts (epoch ms, ascending) a window of `windowMs` ending at `now` touches. */
export function statsBucketsFor(now: number, windowMs: number): number[] {
  const out: number[] = [];
  for (let at = statsBucketOf(now - windowMs + 1); at <= now; at += STATS_BUCKET_MS) out.push(at);
  return out;
}

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A window such as `90m`, `24h` or `7d` in ms, or why it is not one: it must be between an hour
 * (stats are kept per hour) and {@link STATS_MAX_WINDOW_MS}.
 */
export function parseStatsWindow(text: string): { ok: true; ms: number } | { ok: false; error: string } {
  const m = /^(\d{1,6})([mhd])$/.exec(text);
  if (!m)
    return { ok: false, error: `${JSON.stringify(text)} is not a window; use minutes, hours or days, e.g. "24h"` };
  const ms = Number(m[1]) * UNIT_MS[m[2]!]!;
  if (ms < STATS_MIN_WINDOW_MS) return { ok: false, error: 'must be at least 1h (stats are kept per hour)' };
  if (ms > STATS_MAX_WINDOW_MS) return { ok: false, error: 'must be at most 7d (stats are kept for 7 days)' };
  return { ok: true, ms };
}
