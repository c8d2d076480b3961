import type { DroverKeys, RedisClient } from '@drover/redis';
import type { RunView } from './run-view';

/**
 * Runs that have no BullMQ job: skipped fires (never enqueued), runs canceled before they started
 * (their job was removed) and parked runs an operator replayed (their job was removed from the
 * parked area). Each is a JSON copy of its final view that expires with the queue's retention.
 */
export class RunTombstones {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
  ) {}

  key(id: string): string {
    return this.keys.core('run', id);
  }

  async get(id: string): Promise<RunView | undefined> {
    const raw = await this.redis.get(this.key(id));
    return raw ? (JSON.parse(raw) as RunView) : undefined;
  }

  async exists(id: string): Promise<boolean> {
    return (await this.redis.exists(this.key(id))) === 1;
  }

  /** Writes the view unless one exists (`NX`); returns whether it was written. */
  async create(view: RunView, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(this.key(view.id), JSON.stringify(view), 'PX', Math.max(1, ttlMs), 'NX')) === 'OK';
  }

  async put(view: RunView, ttlMs: number): Promise<void> {
    await this.redis.set(this.key(view.id), JSON.stringify(view), 'PX', Math.max(1, ttlMs));
  }

  async delete(id: string): Promise<void> {
    await this.redis.del(this.key(id));
  }
}
