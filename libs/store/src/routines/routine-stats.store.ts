import type { ChainableCommander } from 'ioredis';
import {
  mergeStats,
  STATS_MAX_WINDOW_MS,
  STATS_BUCKET_MS,
  statsBucketOf,
  statsBucketsFor,
  statsIncrements,
  type MergedStats,
  type StatsObservation,
} from '@drover/core';
import type { DroverKeys, RedisClient } from '@drover/redis';

/** An aggregate lives a bucket past the longest window, so a full window always finds it. */
const STATS_TTL_MS = STATS_MAX_WINDOW_MS + STATS_BUCKET_MS;

/** Field increments per aggregate key, to be written together. */
export type StatsBatch = Map<string, Map<string, number>>;

/**
 * Per-routine run statistics in Redis: one small hash per routine and hour (core's run-stats
 * fields), written as runs end and merged over a window on read. Writers add their increments to
 * a pipeline they send anyway (the scheduler's skipped record) or to a batch flushed in one round
 * trip (the worker), so no run end pays a round trip of its own. Bounded: at most 169 hashes per
 * routine, each with a few dozen fields, all expiring.
 */
export class RoutineStatsStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
  ) {}

  key(routine: string, at: number): string {
    return this.keys.routineStats(routine, statsBucketOf(at));
  }

  /** Adds one observation (at `at`, epoch ms) to a batch. */
  add(batch: StatsBatch, routine: string, at: number, obs: StatsObservation): void {
    const key = this.key(routine, at);
    let fields = batch.get(key);
    if (!fields) batch.set(key, (fields = new Map()));
    for (const [f, n] of Object.entries(statsIncrements(obs))) fields.set(f, (fields.get(f) ?? 0) + n);
  }

  /** Queues a batch's writes on `pipe` (HINCRBY per field, one PEXPIRE per hash). */
  write(pipe: ChainableCommander, batch: StatsBatch): ChainableCommander {
    for (const [key, fields] of batch) {
      for (const [f, n] of fields) pipe.hincrby(key, f, n);
      pipe.pexpire(key, STATS_TTL_MS);
    }
    return pipe;
  }

  /** Writes a batch in one round trip, with whatever `also` adds to the same pipeline (the queues' totals). */
  async flush(batch: StatsBatch, also?: (pipe: ChainableCommander) => void): Promise<void> {
    if (batch.size === 0 && !also) return;
    const pipe = this.write(this.redis.pipeline(), batch);
    also?.(pipe);
    await pipe.exec();
  }

  /** The routine's aggregates over the `windowMs` before `now`, merged (one round trip). */
  async read(routine: string, now: number, windowMs: number): Promise<MergedStats & { from: number }> {
    const buckets = statsBucketsFor(now, windowMs);
    const pipe = this.redis.pipeline();
    for (const at of buckets) pipe.hgetall(this.key(routine, at));
    const res = (await pipe.exec()) ?? [];
    const hashes = res.map(([err, v]) => {
      if (err) throw err;
      return (v ?? {}) as Record<string, string>;
    });
    return { ...mergeStats(hashes), from: buckets[0] ?? now };
  }
}
