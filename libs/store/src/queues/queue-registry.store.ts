import { DroverError, parseBundle, type Origin, type Queue, type QueueInput } from '@drover/core';
import {
  ScriptCode,
  StaleLeaderError,
  withDroverScripts,
  type Clock,
  type DroverKeys,
  type RedisClient,
} from '@drover/redis';
import type { BullQueues } from './bull-queues';

/** A queue policy as stored in Redis. Times are epoch ms. */
export interface QueueRecord {
  def: Queue;
  origin: Origin;
  updatedAt: number;
}

/** Thrown when a run names a queue no policy defines. */
export class UnknownQueueError extends DroverError {
  get code() {
    return 'unknown-queue' as const;
  }

  constructor(
    readonly queue: string,
    known: string[],
  ) {
    super(`queue "${queue}" is not defined; defined queues: ${known.length ? known.sort().join(', ') : '(none)'}`);
    this.name = 'UnknownQueueError';
  }
}

/**
 * Queue policies (core's Queue schema) in one Redis hash, name → JSON record. Writing a policy
 * also writes the two limits BullMQ itself enforces from the queue's meta hash — the cluster-wide
 * `globalConcurrency` ceiling and the `rateLimit` — so they hold whichever worker runs the job.
 * Every change is announced on {@link changesChannel} so workers reconcile at once.
 */
export class QueueRegistry {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
    readonly bull: BullQueues,
    private readonly clock: Clock,
  ) {}

  get hashKey(): string {
    return this.keys.queues();
  }

  get changesChannel(): string {
    return this.keys.queuesChanged();
  }

  async list(): Promise<QueueRecord[]> {
    const all = await this.redis.hgetall(this.hashKey);
    return Object.values(all)
      .map((raw) => JSON.parse(raw) as QueueRecord)
      .sort((a, b) => a.def.name.localeCompare(b.def.name));
  }

  async get(name: string): Promise<Queue | undefined> {
    const raw = await this.redis.hget(this.hashKey, name);
    return raw ? (JSON.parse(raw) as QueueRecord).def : undefined;
  }

  /** The policy of `name`, or {@link UnknownQueueError} naming the defined ones. */
  async require(name: string): Promise<Queue> {
    const def = await this.get(name);
    if (def) return def;
    throw new UnknownQueueError(name, await this.redis.hkeys(this.hashKey));
  }

  /**
   * Stores queue policies (validated and defaulted by core). With origin `file` (the default)
   * this is an apply: file queues missing from `queues` are removed, API-made ones are kept.
   * Returns the names removed.
   */
  async put(
    queues: (Queue | QueueInput)[],
    opts: {
      origin?: Origin;
      now?: number;
      /** Leader fencing token: the policies are written only while it is current (one fenced script). */
      token?: string;
      /** Re-checked before each BullMQ limit write, which no script of ours can fence. */
      isCurrent?: () => boolean;
    } = {},
  ): Promise<string[]> {
    const origin = opts.origin ?? 'file';
    const parsed = parseBundle({ queues });
    if (!parsed.ok) throw new Error(`invalid queue policy: ${parsed.errors.join('; ')}`);
    const defs = parsed.bundle.queues;
    const now = opts.now ?? this.clock.now();
    const wanted = new Set(defs.map((q) => q.name));
    const removed =
      origin === 'file' ? (await this.list()).filter((r) => r.origin === 'file' && !wanted.has(r.def.name)) : [];
    // Field/value pairs; an empty value deletes the field (fencedHset-2's convention).
    const fields = [
      ...defs.flatMap((def) => [def.name, JSON.stringify({ def, origin, updatedAt: now } satisfies QueueRecord)]),
      ...removed.flatMap((r) => [r.def.name, '']),
    ];
    if (opts.token !== undefined) {
      const res = await withDroverScripts(this.redis).fencedHset(
        this.keys.leader(),
        this.hashKey,
        opts.token,
        ...fields,
      );
      if (res === ScriptCode.StaleToken) throw new StaleLeaderError('queue policies');
    } else {
      const multi = this.redis.multi();
      for (let i = 0; i < fields.length; i += 2) {
        if (fields[i + 1]) multi.hset(this.hashKey, fields[i]!, fields[i + 1]!);
        else multi.hdel(this.hashKey, fields[i]!);
      }
      await multi.exec();
    }
    for (const def of defs) {
      if (opts.isCurrent && !opts.isCurrent()) throw new StaleLeaderError(`the limits of queue "${def.name}"`);
      await this.applyLimits(def);
    }
    await this.redis.publish(this.changesChannel, String(now));
    return removed.map((r) => r.def.name);
  }

  /** Removes one queue policy (its jobs stay in Redis until purged). */
  async remove(name: string): Promise<boolean> {
    const n = await this.redis.hdel(this.hashKey, name);
    await this.redis.publish(this.changesChannel, String(this.clock.now()));
    return n > 0;
  }

  /**
   * Writes `globalConcurrency` and `rateLimit` where BullMQ's moveToActive reads them (the queue's
   * meta hash), or removes them when the policy has none. Idempotent; workers call it at start too.
   */
  async applyLimits(def: Queue): Promise<void> {
    const q = this.bull.get(def.name);
    if (def.globalConcurrency !== undefined) await q.setGlobalConcurrency(def.globalConcurrency);
    else await q.removeGlobalConcurrency();
    if (def.rateLimit) await q.setGlobalRateLimit(def.rateLimit.max, def.rateLimit.durationMs);
    else await q.removeGlobalRateLimit();
  }
}
