import {
  callbacksDue,
  DEFAULT_QUEUE,
  InvalidPayloadError,
  MAX_BATCH_RUNS,
  MIN_BATCH_KEEP_MS,
  OPEN_BATCH_TTL_MS,
  resolveConcurrencyKey,
  type BatchCallbackOn,
  type BatchCallbacks,
  type BatchCounts,
  type BatchOutcome,
  type Queue,
} from '@drover/core';
import { withDroverScripts, type Clock, type DroverKeys, type RedisClient } from '@drover/redis';
import { batchCallbackRun, inBatch } from '../run-maker/batch-runs';
import type { EnqueueResult, NewRun } from '../runs/new-run';
import { batchViewOf, type BatchView } from './batch-view';

/** At most this many batches are listed (the index keeps the newest). */
const MAX_LISTED = 10_000;
/** Run ids per ZADD when a batch is recorded. */
const CHUNK = 1000;

export interface BatchStoreDeps {
  redis: RedisClient;
  keys: DroverKeys;
  clock: Clock;
  /** The queue's policy, or an UnknownQueueError. */
  requireQueue: (queue: string) => Promise<Queue>;
  /** The run writer's enqueueMany (the one place a run becomes a BullMQ job). */
  enqueueMany: (runs: NewRun[]) => Promise<EnqueueResult[]>;
}

/** What a batch's new record holds besides its runs. */
export interface NewBatch {
  id: string;
  runs: NewRun[];
  callbacks: BatchCallbacks;
  createdBy?: string;
}

/**
 * Batches: a record (`batch:<id>`: total and the counts of settled runs, the callbacks), its run ids
 * in order and the set of runs counted as settled. A run of a batch carries the batch's id; its
 * worker counts it here once it settles, and the count that reaches the total enqueues the callbacks.
 */
export class BatchStore {
  constructor(private readonly deps: BatchStoreDeps) {}

  private get redis() {
    return this.deps.redis;
  }

  /**
   * Writes a batch: checks every queue (its runs' and its callbacks') and the concurrency key of
   * every run of a keyed queue, writes the record (one MULTI), then its runs (the run writer's
   * enqueueMany: one addBulk per queue). The record comes first so no run can settle before it
   * exists; a producer that dies between the two leaves an open batch that expires after 30 days
   * (docs/workloads.md, "Batches").
   *
   * @throws UnknownQueueError, InvalidPayloadError (a key its queue's policy refuses); nothing is written
   */
  async create(batch: NewBatch): Promise<void> {
    const { keys, clock } = this.deps;
    if (batch.runs.length === 0 || batch.runs.length > MAX_BATCH_RUNS) {
      throw new RangeError(`a batch holds 1-${MAX_BATCH_RUNS} runs, not ${batch.runs.length}`);
    }
    const queues = new Set(batch.runs.map((r) => r.queue));
    for (const cb of [batch.callbacks.onComplete, batch.callbacks.onSuccess])
      if (cb) queues.add(cb.queue ?? DEFAULT_QUEUE);
    const policies = new Map<string, Queue>();
    for (const q of queues) policies.set(q, await this.deps.requireQueue(q));
    // The run writer refuses a bad key too, but only after the record exists: checked first here,
    // so a refused batch leaves no open record behind.
    for (const run of batch.runs) {
      const policy = policies.get(run.queue)!.concurrencyKey;
      const resolved = policy && resolveConcurrencyKey(policy, run.payload, run.concurrencyKey);
      if (resolved && 'issue' in resolved) throw new InvalidPayloadError(run.jobType, [resolved.issue]);
    }
    let retentionMs = 0;
    for (const p of policies.values()) retentionMs = Math.max(retentionMs, p.retention.ageMs);
    const now = clock.now();
    const m = this.redis.multi();
    m.hset(keys.batch(batch.id), {
      total: batch.runs.length,
      succeeded: 0,
      parked: 0,
      canceled: 0,
      createdAt: now,
      createdBy: batch.createdBy ?? '',
      callbacks: JSON.stringify(batch.callbacks),
      retentionMs,
    });
    m.pexpire(keys.batch(batch.id), OPEN_BATCH_TTL_MS);
    for (let i = 0; i < batch.runs.length; i += CHUNK) {
      const args = batch.runs.slice(i, i + CHUNK).flatMap((r, j) => [i + j, r.id]);
      m.zadd(keys.batchRuns(batch.id), ...args);
    }
    m.pexpire(keys.batchRuns(batch.id), OPEN_BATCH_TTL_MS);
    for (const index of [keys.batches(), keys.batchesOpen()]) {
      m.zadd(index, now, batch.id);
      m.zremrangebyscore(index, '-inf', `(${now - OPEN_BATCH_TTL_MS}`);
    }
    m.zremrangebyrank(keys.batches(), 0, -(MAX_LISTED + 1));
    await m.exec();
    await this.deps.enqueueMany(inBatch(batch.id, batch.runs));
  }

  /**
   * Counts run `runId` of `batch` as settled (once, whatever replays), and when that completes
   * the batch enqueues its due callbacks (one script call; two more round trips for the batch's
   * last run). Answers which callbacks were enqueued by this call.
   */
  async settle(batch: string, runId: string, outcome: BatchOutcome): Promise<BatchCallbackOn[]> {
    const { keys, clock } = this.deps;
    const [due, succeeded, parked, canceled, total, callbacksJson, retentionMs] = await withDroverScripts(
      this.redis,
    ).settleBatchRun(
      keys.batch(batch),
      keys.batchSettled(batch),
      keys.batchesOpen(),
      runId,
      outcome,
      clock.now(),
      batch,
    );
    if (due !== 1) return [];
    const counts: BatchCounts = { total, succeeded, parked, canceled };
    const callbacks = JSON.parse(callbacksJson || '{}') as BatchCallbacks;
    const fire = callbacksDue(counts, callbacks);
    const ttlMs = Math.max(MIN_BATCH_KEEP_MS, retentionMs);
    if (fire.length) {
      const ctx = { defaultQueue: DEFAULT_QUEUE, ttlMs };
      await this.deps.enqueueMany(
        fire.map((on) =>
          batchCallbackRun(batch, on, (on === 'complete' ? callbacks.onComplete : callbacks.onSuccess)!, counts, ctx),
        ),
      );
    }
    // Recorded after the adds: a crash before this line makes a replayed settle add them again,
    // which their ids and deduplication markers turn into no-ops.
    const m = this.redis.multi();
    m.hset(keys.batch(batch), { fired: clock.now(), firedOn: fire.join(',') });
    for (const k of [keys.batch(batch), keys.batchRuns(batch), keys.batchSettled(batch)]) m.pexpire(k, ttlMs);
    await m.exec();
    return fire;
  }

  /** The batch, or null (never made, or expired). */
  async get(id: string): Promise<BatchView | null> {
    return batchViewOf(id, await this.redis.hgetall(this.deps.keys.batch(id)), DEFAULT_QUEUE);
  }

  /** Run ids of the batch in the order they were given, from `offset`, at most `limit`. */
  async runIds(id: string, offset: number, limit: number): Promise<string[]> {
    return this.redis.zrange(this.deps.keys.batchRuns(id), String(offset), String(offset + limit - 1));
  }

  /** Batches newest first, at most `limit`, created before `before` (epoch ms) when given. */
  async list(limit: number, before?: number): Promise<BatchView[]> {
    const { keys } = this.deps;
    const max = before === undefined ? '+inf' : `(${before}`;
    const ids = await this.redis.zrevrangebyscore(keys.batches(), max, '-inf', 'LIMIT', 0, limit);
    if (!ids.length) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hgetall(keys.batch(id));
    const rows = (await pipe.exec()) ?? [];
    return ids.flatMap((id, i) => {
      const view = batchViewOf(id, (rows[i]?.[1] ?? {}) as Record<string, string>, DEFAULT_QUEUE);
      return view ? [view] : [];
    });
  }

  /** How many batches are open (not yet complete, at most 30 days old). */
  async openCount(): Promise<number> {
    const key = this.deps.keys.batchesOpen();
    return this.redis.zcount(key, String(this.deps.clock.now() - OPEN_BATCH_TTL_MS), '+inf');
  }
}
