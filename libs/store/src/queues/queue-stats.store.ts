import type { ChainableCommander } from 'ioredis';
import {
  addQueueBucket,
  emptyQueueBucket,
  planQueueStats,
  queueBucketsOf,
  queueStatsIncrements,
  summarizeQueueStats,
  type QueueBucket,
  type QueueObservation,
  type QueueStatsSummary,
} from '@drover/core';
import type { DroverKeys, RedisClient } from '@drover/redis';

/** Per span key: when it expires (epoch ms) and its field increments. */
export type QueueStatsBatch = Map<string, { expireAt: number; fields: Map<string, number> }>;

/**
 * Per-queue run totals in Redis: small hashes of minute and hour buckets (core's queue-stats
 * shape), incremented as runs settle and summed over a window on read. Writers add to a batch
 * that goes out in a pipeline they send anyway (the worker's once-a-second stats flush), so no
 * run pays a round trip of its own. Bounded: per queue at most ~158 minute hashes and ~34 hour
 * hashes, each under 128 fields and expiring at a fixed instant (docs/redis.md).
 */
export class QueueStatsStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
  ) {}

  /** Adds `count` observations (at `at`, epoch ms) of `queue` to a batch. */
  add(batch: QueueStatsBatch, queue: string, at: number, obs: QueueObservation, count = 1): void {
    for (const inc of queueStatsIncrements(at, obs)) {
      const key = this.keys.queueStats(queue, inc.res.name, inc.spanStart);
      let span = batch.get(key);
      if (!span) batch.set(key, (span = { expireAt: inc.expireAt, fields: new Map() }));
      span.fields.set(inc.field, (span.fields.get(inc.field) ?? 0) + count);
    }
  }

  /** Queues a batch's writes on `pipe` (HINCRBY per field, one PEXPIREAT per hash). */
  write(pipe: ChainableCommander, batch: QueueStatsBatch): ChainableCommander {
    for (const [key, { expireAt, fields }] of batch) {
      for (const [f, n] of fields) pipe.hincrby(key, f, n);
      pipe.pexpireat(key, expireAt);
    }
    return pipe;
  }

  /** Each queue's buckets over the `windowMs` before `now` (one round trip for all of them). */
  async readMany(queues: string[], now: number, windowMs: number) {
    const plan = planQueueStats(now, windowMs);
    const pipe = this.redis.pipeline();
    for (const q of queues) for (const s of plan.spans) pipe.hgetall(this.keys.queueStats(q, plan.res.name, s));
    const res = (await pipe.exec()) ?? [];
    let i = 0;
    const perQueue = queues.map((queue) => {
      const spans = plan.spans.map((start) => {
        const [err, v] = res[i++] ?? [null, {}];
        if (err) throw err;
        return { start, hash: (v ?? {}) as Record<string, string> };
      });
      return { queue, buckets: queueBucketsOf(plan.res, spans, plan.from, plan.to) };
    });
    return { plan, perQueue };
  }

  /** One queue's window, summed and downsampled. */
  async read(queue: string, now: number, windowMs: number): Promise<QueueStatsSummary> {
    const { plan, perQueue } = await this.readMany([queue], now, windowMs);
    return summarizeQueueStats(plan, perQueue[0]!.buckets);
  }

  /** Every named queue's window, and all of them together. */
  async readAll(
    queues: string[],
    now: number,
    windowMs: number,
  ): Promise<{ overall: QueueStatsSummary; queues: { queue: string; summary: QueueStatsSummary }[] }> {
    const { plan, perQueue } = await this.readMany(queues, now, windowMs);
    const merged = new Map<number, QueueBucket>();
    for (const { buckets } of perQueue) {
      for (const [at, b] of buckets) {
        let into = merged.get(at);
        if (!into) merged.set(at, (into = emptyQueueBucket()));
        addQueueBucket(into, b);
      }
    }
    return {
      overall: summarizeQueueStats(plan, merged),
      queues: perQueue.map(({ queue, buckets }) => ({ queue, summary: summarizeQueueStats(plan, buckets) })),
    };
  }
}
