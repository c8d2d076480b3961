import type { Queue as BullQueue } from 'bullmq';
import type { Logger } from 'pino';
import type { RedisClient } from '@drover/redis';

/** At most this many finished jobs are removed per BullMQ `clean` call. */
const BATCH = 1_000;

/**
 * Removes completed runs older than the queue's `retention.ageMs`. The count bound is enforced by
 * BullMQ on every completion (`removeOnComplete.count`); checking the age there too costs a sorted
 * set range query per job, so it runs here instead, every `ageMs / 10` (10 s – 5 min), on one
 * worker at a time (a lock in the queue's hash slot), and once when a consumer starts.
 */
export class RetentionJanitor {
  private timer?: NodeJS.Timeout;
  readonly everyMs: number;

  constructor(
    private readonly queue: BullQueue,
    private readonly redis: RedisClient,
    private readonly lockKey: string,
    private readonly ageMs: number,
    private readonly owner: string,
    private readonly log: Logger,
    /** More upkeep of the queue done on the same pass, under the same lock. */
    private readonly also?: () => Promise<unknown>,
  ) {
    this.everyMs = Math.min(Math.max(Math.round(ageMs / 10), 10_000), 300_000);
  }

  start(): void {
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), this.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Removes the aged completed runs if no other worker is doing it; returns how many it removed. */
  async sweep(): Promise<number> {
    try {
      if ((await this.redis.set(this.lockKey, this.owner, 'PX', this.everyMs, 'NX')) !== 'OK') return 0;
      await this.also?.().catch((err: unknown) =>
        this.log.warn({ queue: this.queue.name, err: (err as Error).message }, 'queue upkeep failed'),
      );
      let removed = 0;
      for (;;) {
        const batch = await this.queue.clean(this.ageMs, BATCH, 'completed');
        removed += batch.length;
        if (batch.length < BATCH) return removed;
      }
    } catch (err) {
      this.log.debug({ queue: this.queue.name, err: (err as Error).message }, 'retention sweep failed');
      return 0;
    }
  }
}
