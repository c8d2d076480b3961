import { DEFAULT_QUEUE, InvalidOptionsError, NAME_PATTERN, type JobContract } from '@drover/core';
import { DEFAULT_WAIT_TIMEOUT_MS, type BorrowedClient, type RedisClient, type ReplicaWaitOptions } from '@drover/redis';
import type { RedisTarget } from '@drover/config';
import type { DroverModuleOptions, RedisNode } from './drover-options';
import { resolveTls } from './resolve-tls';

/** {@link DroverModuleOptions} checked and defaulted. */
export interface ResolvedDroverOptions {
  redis: RedisTarget | BorrowedClient;
  prefix: string;
  defaultQueue: string;
  name: string;
  contracts: ReadonlyMap<string, JobContract>;
  strictJobTypes: boolean;
  waitReplicas: ReplicaWaitOptions;
}

const KNOWN = ['redis', 'prefix', 'defaultQueue', 'name', 'contracts', 'strictJobTypes', 'waitReplicas'];
// The same rules as DROVER_PREFIX and DROVER_INSTANCE_ID (libs/config), so a producer can share them.
const PREFIX = /^[A-Za-z0-9_.-]{1,64}$/;
const CLIENT_NAME = /^[A-Za-z0-9_.:-]{1,128}$/;
const SENTINEL_NAME = /^[A-Za-z0-9_.-]+$/;
const EXAMPLE_URL = 'redis://127.0.0.1:6379';

/** A URL for messages: credentials never appear in an error. */
const redact = (raw: string) => raw.replace(/\/\/[^@/]*@/, '//***@');

function checkUrl(raw: unknown, field: string, issues: string[]): string | undefined {
  if (typeof raw !== 'string') {
    issues.push(`${field}: expected a redis:// or rediss:// URL string, e.g. "${EXAMPLE_URL}"`);
    return undefined;
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    issues.push(`${field}: "${redact(raw)}" is not a URL; e.g. "${EXAMPLE_URL}"`);
    return undefined;
  }
  const db = u.pathname.replace(/^\//, '');
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    issues.push(`${field}: scheme "${u.protocol}" is not redis: or rediss: (TLS); e.g. "${EXAMPLE_URL}"`);
  } else if (!u.hostname) issues.push(`${field}: "${redact(raw)}" has no host; e.g. "${EXAMPLE_URL}"`);
  else if (db !== '' && !/^\d+$/.test(db))
    issues.push(`${field}: database "${db}" is not a number; e.g. "${EXAMPLE_URL}/0"`);
  else return raw;
  return undefined;
}

function checkNodes(raw: unknown, field: string, issues: string[]): RedisNode[] {
  const ok = (n: unknown): n is RedisNode =>
    typeof (n as RedisNode)?.host === 'string' &&
    (n as RedisNode).host !== '' &&
    Number.isInteger((n as RedisNode).port) &&
    (n as RedisNode).port >= 1 &&
    (n as RedisNode).port <= 65535;
  if (!Array.isArray(raw) || raw.length === 0 || !raw.every(ok)) {
    issues.push(`${field}: expected a non-empty list of { host, port }, e.g. [{ host: "127.0.0.1", port: 26379 }]`);
    return [];
  }
  return raw.map((n) => ({ host: n.host, port: n.port }));
}

function isRedisClient(c: unknown): c is RedisClient {
  const client = c as Partial<RedisClient> | null;
  return typeof client?.duplicate === 'function' && typeof client.isCluster === 'boolean';
}

function checkClient(client: unknown, issues: string[]): BorrowedClient | undefined {
  if (!isRedisClient(client)) {
    issues.push('redis.client: expected an ioredis Redis or Cluster instance');
    return undefined;
  }
  const opts = client.options as { keyPrefix?: string; redisOptions?: { keyPrefix?: string } };
  const keyPrefix = opts.keyPrefix || opts.redisOptions?.keyPrefix;
  if (keyPrefix) {
    issues.push(
      `redis.client: the client has keyPrefix "${keyPrefix}", which BullMQ cannot work with; ` +
        'give Drover a client without keyPrefix and use the `prefix` option instead',
    );
    return undefined;
  }
  return { kind: 'client', client };
}

function resolveRedis(raw: DroverModuleOptions['redis'], issues: string[]): RedisTarget | BorrowedClient | undefined {
  if (raw === undefined) return { kind: 'url', url: EXAMPLE_URL, tls: false };
  const asUrl = (url: string | undefined): RedisTarget | undefined =>
    url === undefined ? undefined : { kind: 'url', url, tls: url.startsWith('rediss:') };
  if (typeof raw === 'string') return asUrl(checkUrl(raw, 'redis', issues));
  if (typeof raw !== 'object' || raw === null) {
    issues.push(`redis: expected a URL, { url }, { sentinels, name }, { clusterNodes } or { client }`);
    return undefined;
  }
  const shapes = ['client', 'sentinels', 'clusterNodes'].filter((k) => k in raw);
  if (shapes.length > 1) {
    issues.push(`redis: give only one of ${shapes.join(', ')}`);
    return undefined;
  }
  if ('client' in raw) return checkClient(raw.client, issues);
  const url = 'url' in raw && raw.url !== undefined ? checkUrl(raw.url, 'redis.url', issues) : undefined;
  const dataTls = url?.startsWith('rediss:') === true;
  const rawTls = 'tls' in raw ? raw.tls : undefined;
  if ('sentinels' in raw) {
    const sentinels = checkNodes(raw.sentinels, 'redis.sentinels', issues);
    if (typeof raw.name !== 'string' || !SENTINEL_NAME.test(raw.name)) {
      issues.push('redis.name: expected the Sentinel master name, e.g. "mymaster"');
    }
    const sentinelTls = raw.sentinelTls;
    if (sentinelTls !== undefined && typeof sentinelTls !== 'boolean') {
      issues.push('redis.sentinelTls: expected true or false');
    }
    const tls = resolveTls(rawTls, { data: dataTls, sentinels: sentinelTls ?? dataTls }, issues);
    return {
      kind: 'sentinel',
      sentinels,
      name: raw.name,
      ...(url && { url }),
      ...(typeof sentinelTls === 'boolean' && { sentinelTls }),
      ...tls,
    };
  }
  const tls = resolveTls(rawTls, { data: dataTls }, issues);
  if ('clusterNodes' in raw) {
    const nodes = checkNodes(raw.clusterNodes, 'redis.clusterNodes', issues);
    return { kind: 'cluster', nodes, ...(url && { url }), ...tls };
  }
  if (!('url' in raw))
    issues.push(`redis: expected a URL, { url }, { sentinels, name }, { clusterNodes } or { client }`);
  const target = asUrl(url);
  return target && { ...target, ...tls };
}

function resolveContracts(raw: unknown, issues: string[]): Map<string, JobContract> {
  const map = new Map<string, JobContract>();
  if (raw === undefined) return map;
  if (!Array.isArray(raw)) {
    issues.push('contracts: expected a list of contracts made with defineJob');
    return map;
  }
  raw.forEach((c: Partial<JobContract> | null, i) => {
    if (typeof c?.jobType !== 'string' || typeof c.payload?.safeParseAsync !== 'function') {
      issues.push(`contracts[${i}]: expected a contract made with defineJob`);
    } else if (map.has(c.jobType) && map.get(c.jobType) !== c) {
      issues.push(`contracts[${i}]: job type "${c.jobType}" is registered twice with different contracts`);
    } else map.set(c.jobType, c as JobContract);
  });
  return map;
}

/** The same bounds as DROVER_REDIS_WAIT_REPLICAS (0-16) and DROVER_REDIS_WAIT_TIMEOUT_MS (10-60000). */
function resolveWait(raw: DroverModuleOptions['waitReplicas'], issues: string[]): ReplicaWaitOptions {
  const o = typeof raw === 'number' || raw === undefined ? { replicas: raw ?? 0 } : raw;
  const replicas = o?.replicas;
  const timeoutMs = o?.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  if (!Number.isInteger(replicas) || replicas < 0 || replicas > 16) {
    issues.push('waitReplicas: expected a whole number of replicas 0-16, or { replicas, timeoutMs }, e.g. 1');
  }
  if (!Number.isInteger(timeoutMs) || timeoutMs < 10 || timeoutMs > 60_000) {
    issues.push('waitReplicas.timeoutMs: expected whole milliseconds 10-60000, e.g. 1000');
  }
  return { replicas, timeoutMs };
}

/** Checks and defaults the module options; throws {@link InvalidOptionsError} naming every bad field. */
export function resolveOptions(raw: DroverModuleOptions | undefined): ResolvedDroverOptions {
  const o = raw ?? {};
  if (typeof o !== 'object' || o === null) throw new InvalidOptionsError('DroverModule', ['expected an object']);
  const issues: string[] = [];
  for (const key of Object.keys(o)) {
    if (!KNOWN.includes(key)) issues.push(`unknown option "${key}"; valid options: ${KNOWN.join(', ')}`);
  }
  const redis = resolveRedis(o.redis, issues);
  const prefix = o.prefix ?? 'drover';
  if (typeof prefix !== 'string' || !PREFIX.test(prefix)) {
    issues.push(
      `prefix: ${JSON.stringify(prefix)} may only hold letters, digits, "_", "." and "-" (1-64), e.g. "drover"`,
    );
  }
  const defaultQueue = o.defaultQueue ?? DEFAULT_QUEUE;
  if (typeof defaultQueue !== 'string' || !NAME_PATTERN.test(defaultQueue)) {
    issues.push(
      `defaultQueue: ${JSON.stringify(defaultQueue)} is not a queue name ([a-z0-9][a-z0-9._-]{0,127}), e.g. "default"`,
    );
  }
  const name = o.name ?? 'client';
  if (typeof name !== 'string' || !CLIENT_NAME.test(name)) {
    issues.push(
      `name: ${JSON.stringify(name)} may only hold letters, digits, "_", ".", ":" and "-" (1-128), e.g. "billing-api"`,
    );
  }
  const contracts = resolveContracts(o.contracts, issues);
  const strictJobTypes = o.strictJobTypes ?? false;
  if (typeof strictJobTypes !== 'boolean') issues.push('strictJobTypes: expected true or false');
  const waitReplicas = resolveWait(o.waitReplicas, issues);
  if (
    waitReplicas.replicas > 0 &&
    redis &&
    (redis.kind === 'cluster' || (redis.kind === 'client' && redis.client.isCluster))
  ) {
    issues.push('waitReplicas: not supported with Redis Cluster (WAIT must reach the node that took the write)');
  }
  if (issues.length || !redis) throw new InvalidOptionsError('DroverModule', issues);
  return { redis, prefix, defaultQueue, name, contracts, strictJobTypes, waitReplicas };
}
