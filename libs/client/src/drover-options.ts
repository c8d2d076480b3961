import type { Cluster, Redis } from 'ioredis';
import type { JobContract } from '@drover/core';

/** A Redis node address. */
export interface RedisNode {
  host: string;
  port: number;
}

/**
 * How TLS connections are verified and authenticated (TLS itself is on when `url` is `rediss://`);
 * the app's `REDIS_TLS_*` variables.
 */
export interface DroverTlsOptions {
  /** PEM CA certificate(s) the servers' certificates must chain to. Default: Node's public roots. */
  ca?: string | Buffer;
  /** PEM client certificate, for servers that require one (`tls-auth-clients yes`); needs `key`. */
  cert?: string | Buffer;
  /** PEM private key of `cert`, unencrypted. */
  key?: string | Buffer;
  /** The name every node's certificate is checked against. Default: the host each node is reached at. */
  servername?: string;
}

/**
 * Where Redis is — one of:
 * - a `redis://` or `rediss://` (TLS) URL, user/password and `/db` allowed, as a string or `{ url, tls? }`;
 * - `{ sentinels, name, url?, tls?, sentinelTls? }`: Sentinel nodes and the master name (`url` only carries
 *   credentials/TLS; the Sentinels are reached over TLS when `sentinelTls`, default: when `url` is `rediss://`);
 * - `{ clusterNodes, url?, tls? }`: Redis Cluster seed nodes (`url` only carries credentials/TLS);
 * - `{ client }`: an ioredis `Redis` or `Cluster` your app already has. Drover never closes it; the
 *   extra connections it needs (BullMQ event readers) are duplicates of it that Drover closes.
 */
export type DroverRedisOptions =
  | string
  | { url: string; tls?: DroverTlsOptions }
  | { sentinels: RedisNode[]; name: string; url?: string; tls?: DroverTlsOptions; sentinelTls?: boolean }
  | { clusterNodes: RedisNode[]; url?: string; tls?: DroverTlsOptions }
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
  /**
   * The cluster's `DROVER_REDIS_WAIT_REPLICAS` / `_TIMEOUT_MS`: `enqueue` resolves only once this many
   * replicas acknowledged the run (Redis `WAIT`), and rejects with `NotReplicatedError`
   * (`redis-not-replicated`) when fewer did within `timeoutMs` (default 1000). Not with Redis Cluster.
   * Default 0: no `WAIT`.
   */
  waitReplicas?: number | { replicas: number; timeoutMs?: number };
}
