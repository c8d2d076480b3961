import type { Cluster, Redis } from 'ioredis';
import type { JobContract } from '@drover/core';

/** A Redis node address. */
export interface RedisNode {
  host: string;
  port: number;
}

/**
 * Where Redis is — one of:
 * - a `redis://` or `rediss://` (TLS) URL, user/password and `/db` allowed, as a string or `{ url }`;
 * - `{ sentinels, name, url? }`: Sentinel nodes and the master name (`url` only carries credentials/TLS);
 * - `{ clusterNodes, url? }`: Redis Cluster seed nodes (`url` only carries credentials/TLS);
 * - `{ client }`: an ioredis `Redis` or `Cluster` your app already has. Drover never closes it; the
 *   extra connections it needs (BullMQ event readers) are duplicates of it that Drover closes.
 */
export type DroverRedisOptions =
  | string
  | { url: string }
  | { sentinels: RedisNode[]; name: string; url?: string }
  | { clusterNodes: RedisNode[]; url?: string }
  | { client: Redis | Cluster };

/** Options of `DroverModule.forRoot` (or what `forRootAsync`'s factory returns). */
export interface DroverModuleOptions {
  /** Default `redis://127.0.0.1:6379`. Must be the Redis the Drover cluster uses. */
  redis?: DroverRedisOptions;
  /** Key prefix; the cluster's `DROVER_PREFIX`. Default `drover`. */
  prefix?: string;
  /** Queue of an `enqueue` that names none and whose contract names none. Default `default`. */
  defaultQueue?: string;
  /**
   * Who this producer is: recorded as `createdBy` on the runs it creates and in the Redis client
   * names (`CLIENT LIST`). Default `client`.
   */
  name?: string;
  /** Contracts to validate payloads against when `enqueue` is given a job type name. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any contract, whatever its payload types
  contracts?: readonly JobContract<any, any, any>[];
  /** Refuse `enqueue` by name of a job type with no registered contract (UnknownJobTypeError). Default false. */
  strictJobTypes?: boolean;
}
