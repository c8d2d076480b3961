import type { RedisQueueBackend } from 'bullmq';
import { keyedRunRepair } from '@drover/core';
import { withDroverScripts, type Clock, type RedisClient } from '@drover/redis';
import type { BullQueues } from '../queues/bull-queues';
import { BUFFERED_HOLD_MS } from './buffered-runs';

/** How long a keyed run is held back when it is added: as a buffered run, far longer than any run waits its turn. */
export const KEY_HOLD_MS = BUFFERED_HOLD_MS;

/** The limit of a key whose queue no longer takes keys: its held runs all start. */
export const KEY_UNLIMITED = 1_000_000_000;

/** A repair looks at this many keys of a queue per pass (the busiest first). */
const REPAIR_KEYS = 1_000;

/** The concurrency key recorded in a job's data, if any (a record that is not JSON has none). */
function concurrencyKeyIn(data: string): string | undefined {
  try {
    const key = (JSON.parse(data) as { ckey?: unknown }).ckey;
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}

/** A key's places as `GET /queues/{name}` shows them. */
export interface KeyLoad {
  key: string;
  running: number;
  waiting: number;
}

/**
 * Per-key concurrency. A run of a queue with a concurrency key is added as a BullMQ job held back a
 * year (so no worker fetches it, and a hot key's backlog never blocks another key's runs) and
 * recorded in its key's held list; one script (releaseKey) moves the oldest held runs into the key's
 * free places (its running set, at most `limit`), and BullMQ's own promote then hands each one to
 * the workers. A run frees its place when it settles (succeeded, canceled, parked — a retry keeps
 * it). A crash between the script's decision and the promote, or a settle never recorded (a worker
 * killed right after BullMQ ended the job, a job removed by hand), is healed by {@link repair}.
 */
export class KeyedRuns {
  constructor(
    private readonly redis: RedisClient,
    private readonly bull: BullQueues,
    private readonly clock: Clock,
  ) {}

  /** Records run `id` (just added held) in its key's list and starts what the key's limit allows; the ids started. */
  hold(queue: string, key: string, limit: number, id: string, at = this.clock.now()): Promise<string[]> {
    return this.release(queue, key, limit, id, '', at);
  }

  /** Frees the place of run `id`, which settled, and starts the key's next held runs; the ids started. */
  settle(queue: string, key: string, limit: number, id: string): Promise<string[]> {
    return this.release(queue, key, limit, '', id, 0);
  }

  /** The busiest keys of a queue (at most `count`), with how many of their runs run and wait. */
  async top(queue: string, count: number): Promise<KeyLoad[]> {
    const keys = this.bull.keys;
    const names = await this.redis.zrevrange(keys.queueKeys(queue), 0, count - 1);
    if (!names.length) return [];
    const pipe = this.redis.pipeline();
    for (const k of names) pipe.scard(keys.keyRunning(queue, k)).zcard(keys.keyHeld(queue, k));
    const counts = ((await pipe.exec()) ?? []).map(([, v]) => Number(v) || 0);
    return names.map((key, i) => ({ key, running: counts[2 * i]!, waiting: counts[2 * i + 1]! }));
  }

  /**
   * Heals a queue's keys (core's keyedRunRepair per run holding a place): frees the places of runs
   * whose job is gone or ended, promotes runs a release chose but never promoted, then fills free
   * places. Answers how many places it freed and runs it started.
   */
  async repair(queue: string, limit: number): Promise<{ freed: number; started: number }> {
    const keys = this.bull.keys;
    const names = await this.redis.zrevrange(keys.queueKeys(queue), 0, REPAIR_KEYS - 1);
    const holdFrom = this.clock.now() + KEY_HOLD_MS / 2;
    let freed = 0;
    let started = 0;
    for (const key of names) {
      const ids = await this.redis.smembers(keys.keyRunning(queue, key));
      const pipe = this.redis.pipeline();
      for (const id of ids) {
        pipe.hmget(keys.bullJob(queue, id), 'timestamp', 'finishedOn');
        pipe.zscore(keys.bullDelayed(queue), id);
      }
      const replies = ((await pipe.exec()) ?? []).map(([, v]) => v);
      for (const [i, id] of ids.entries()) {
        const [timestamp, finishedOn] = replies[2 * i] as (string | null)[];
        const score = replies[2 * i + 1] as string | null;
        const seen = {
          exists: timestamp !== null,
          finished: finishedOn !== null,
          // BullMQ scores a delayed job by its due time × 4096 (plus a counter).
          ...(score !== null && { delayedUntil: Math.floor(Number(score) / 4096) }),
        };
        const act = keyedRunRepair(seen, holdFrom);
        if (act === 'drop') {
          freed++;
          started += (await this.settle(queue, key, limit, id)).length;
        } else if (act === 'start') {
          await this.start(queue, id, 0);
          started++;
        }
      }
      started += (await this.release(queue, key, limit, '', '', 0)).length;
    }
    started += await this.relist(queue, limit, holdFrom);
    return { freed, started };
  }

  /**
   * Records held keyed runs missing from their key's list (a producer that died between BullMQ's add
   * and the hold), among the {@link REPAIR_KEYS} oldest runs held far ahead: a missing run is found at
   * the latest once it is among them. Answers how many runs that started.
   */
  private async relist(queue: string, limit: number, holdFrom: number): Promise<number> {
    const keys = this.bull.keys;
    const ids = await this.redis.zrangebyscore(
      keys.bullDelayed(queue),
      holdFrom * 4096,
      '+inf',
      'LIMIT',
      0,
      REPAIR_KEYS,
    );
    if (!ids.length) return 0;
    const read = this.redis.pipeline();
    for (const id of ids) read.hmget(keys.bullJob(queue, id), 'data', 'timestamp');
    const held: { id: string; key: string; at: number }[] = [];
    ((await read.exec()) ?? []).forEach(([, v], i) => {
      const [data, timestamp] = (v ?? []) as (string | null)[];
      if (!data?.includes('"ckey"')) return;
      const key = concurrencyKeyIn(data);
      if (key !== undefined) held.push({ id: ids[i]!, key, at: Number(timestamp) || 0 });
    });
    if (!held.length) return 0;
    const listed = this.redis.pipeline();
    for (const h of held) listed.zscore(keys.keyHeld(queue, h.key), h.id);
    const scores = ((await listed.exec()) ?? []).map(([, v]) => v);
    let started = 0;
    for (const [i, h] of held.entries()) {
      if (scores[i] !== null) continue;
      // Not listed: record it as held since it was added (the script skips a run holding a place).
      started += (await this.hold(queue, h.key, limit, h.id, h.at)).length;
    }
    return started;
  }

  private async release(
    queue: string,
    key: string,
    limit: number,
    hold: string,
    ended: string,
    heldAt: number,
  ): Promise<string[]> {
    const keys = this.bull.keys;
    const reply = await withDroverScripts(this.redis).releaseKey(
      keys.keyHeld(queue, key),
      keys.keyRunning(queue, key),
      keys.queueKeys(queue),
      limit,
      key,
      keys.bullJob(queue, ''),
      hold,
      heldAt,
      ended,
    );
    const ids: string[] = [];
    for (let i = 0; i < reply.length; i += 2) {
      const id = String(reply[i]);
      await this.start(queue, id, Number(reply[i + 1]) || 0);
      ids.push(id);
    }
    return ids;
  }

  /** Hands a held run to the workers: BullMQ's promote, or, for a run enqueued with a delay, its due time. */
  private async start(queue: string, id: string, dueAt: number): Promise<void> {
    const backend = this.bull.get(queue).backend as RedisQueueBackend;
    const delay = dueAt - this.clock.now();
    try {
      if (delay > 0) await backend.changeDelay(id, delay);
      else await backend.promote(id);
    } catch {
      // No longer delayed (started by another release or a repair, or canceled): nothing to do.
    }
  }
}
