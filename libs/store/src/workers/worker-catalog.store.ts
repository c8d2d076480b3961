import type { DroverKeys, RedisClient } from '@drover/redis';

/** What a worker process tells the cluster about itself (the `cluster` view, docs/api.md). Times are epoch ms. */
export interface WorkerCatalogEntry {
  instanceId: string;
  /** Drawn at process start: tells two processes given the same instance id apart. */
  nonce: string;
  version: string;
  pid: number;
  hostname: string;
  queues: { name: string; concurrency: number }[];
  jobTypes: string[];
  startedAt: number;
  heartbeatAt: number;
  draining: boolean;
}

/**
 * Live workers: one key per worker that expires unless refreshed (a crashed worker disappears by
 * itself) plus a set of ids to find them; readers drop ids whose key has expired.
 */
export class WorkerCatalog {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: DroverKeys,
  ) {}

  private entryKey(instanceId: string): string {
    return this.keys.worker(instanceId);
  }

  private get indexKey(): string {
    return this.keys.workers();
  }

  /**
   * Writes (or refreshes) the entry; answers the entry it replaced, read in the same transaction
   * — another process's under the same instance id shows a duplicate (see DuplicateInstanceWatch).
   */
  async publish(entry: WorkerCatalogEntry, ttlMs: number): Promise<WorkerCatalogEntry | undefined> {
    const key = this.entryKey(entry.instanceId);
    const res = await this.redis
      .multi()
      .get(key)
      .set(key, JSON.stringify(entry), 'PX', ttlMs)
      .sadd(this.indexKey, entry.instanceId)
      .exec();
    const [err, previous] = res?.[0] ?? [null, null];
    if (err) throw err;
    return typeof previous === 'string' ? (JSON.parse(previous) as WorkerCatalogEntry) : undefined;
  }

  async remove(instanceId: string): Promise<void> {
    await this.redis.multi().del(this.entryKey(instanceId)).srem(this.indexKey, instanceId).exec();
  }

  /** Every live worker, by instance id. */
  async list(): Promise<WorkerCatalogEntry[]> {
    const ids = (await this.redis.smembers(this.indexKey)).sort();
    if (ids.length === 0) return [];
    const raws = await this.redis.mget(...ids.map((id) => this.entryKey(id)));
    const gone = ids.filter((_, i) => raws[i] === null);
    if (gone.length) await this.redis.srem(this.indexKey, ...gone);
    return raws.flatMap((raw) => (raw ? [JSON.parse(raw) as WorkerCatalogEntry] : []));
  }
}
