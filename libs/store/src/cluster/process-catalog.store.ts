import type { DroverKeys, RedisClient } from '@drover/redis';

/** Roles that announce themselves here (workers have their richer {@link WorkerCatalog}). */
export type ProcessRole = 'scheduler' | 'api';

/** What a scheduler or api process tells the cluster about itself (the `cluster` view, docs/api.md). Epoch ms. */
export interface ProcessEntry {
  role: ProcessRole;
  instanceId: string;
  /** Drawn at process start: tells two processes given the same instance id apart. */
  nonce: string;
  version: string;
  pid: number;
  hostname: string;
  startedAt: number;
  heartbeatAt: number;
  /** Scheduler only, while it leads: its epoch and since when (the lease itself has no start time). */
  leader?: { epoch: number; since: number };
}

/**
 * Live scheduler and api processes, like the worker catalog: one key per process that expires
 * unless refreshed (a crashed process disappears by itself) plus a set of ids per role; readers
 * drop ids whose key has expired. Standalone announces each of its roles under the same id.
 */
export class ProcessCatalog {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
  ) {}

  private entryKey(role: ProcessRole, instanceId: string): string {
    return this.keys.process(role, instanceId);
  }

  private indexKey(role: ProcessRole): string {
    return this.keys.processes(role);
  }

  async publish(entry: ProcessEntry, ttlMs: number): Promise<void> {
    await this.redis
      .multi()
      .set(this.entryKey(entry.role, entry.instanceId), JSON.stringify(entry), 'PX', ttlMs)
      .sadd(this.indexKey(entry.role), entry.instanceId)
      .exec();
  }

  async remove(role: ProcessRole, instanceId: string): Promise<void> {
    await this.redis.multi().del(this.entryKey(role, instanceId)).srem(this.indexKey(role), instanceId).exec();
  }

  /** Every live process of `role`, by instance id. */
  async list(role: ProcessRole): Promise<ProcessEntry[]> {
    const ids = (await this.redis.smembers(this.indexKey(role))).sort();
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(...ids.map((id) => this.entryKey(role, id)));
    const gone = ids.filter((_, i) => raws[i] === null);
    if (gone.length) await this.redis.srem(this.indexKey(role), ...gone);
    return raws.flatMap((raw) => (raw ? [JSON.parse(raw) as ProcessEntry] : []));
  }
}
