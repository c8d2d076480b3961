import type { Retention } from '@drover/core';
import { withDroverScripts, type DroverKeys, type RedisClient } from '@drover/redis';
import type { RunView } from './run-view';

/**
 * Runs that have no BullMQ job: skipped fires (never enqueued), runs canceled before they started
 * (their job was removed) and parked runs an operator replayed (their job was removed from the
 * parked area). Each is a JSON copy of its final view, kept within its queue's retention like a
 * finished job: it expires after `ageMs`, and beyond `count` per queue the oldest are deleted.
 */
export class RunTombstones {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
  ) {}

  key(id: string): string {
    return this.keys.runRecord(id);
  }

  /** The queue's index of records, oldest first (bounds their number). */
  indexKey(queue: string): string {
    return this.keys.runsKept(queue);
  }

  async get(id: string): Promise<RunView | undefined> {
    const raw = await this.redis.get(this.key(id));
    return raw ? (JSON.parse(raw) as RunView) : undefined;
  }

  async exists(id: string): Promise<boolean> {
    return (await this.redis.exists(this.key(id))) === 1;
  }

  /** Writes the view unless one exists (`NX`); returns whether it was written. */
  async create(view: RunView, retention: Retention, now: number): Promise<boolean> {
    return (await this.write(view, retention, now, 'NX')) === 1;
  }

  async put(view: RunView, retention: Retention, now: number): Promise<void> {
    await this.write(view, retention, now, '');
  }

  private write(view: RunView, retention: Retention, now: number, mode: 'NX' | ''): Promise<number> {
    return withDroverScripts(this.redis).putTombstone(
      this.key(view.id),
      this.indexKey(view.queue),
      JSON.stringify(view),
      retention.ageMs,
      mode,
      now,
      retention.count,
      view.id,
      this.key(''),
    );
  }

  async delete(id: string): Promise<void> {
    await this.redis.del(this.key(id));
  }
}
