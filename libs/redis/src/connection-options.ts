import type { ConnectionOptions } from 'node:tls';
import type { ClusterOptions, RedisOptions, SentinelAddress } from 'ioredis';
import type { RedisTarget, RedisTlsSettings } from '@drover/config';

export type ConnectionRole = 'command' | 'blocking';

/** Longest wait between two reconnect attempts to Redis. */
export const RECONNECT_CAP_MS = 2_000;

/** What ioredis needs to open one connection (or a cluster client) for a target. */
export type ConnectionPlan =
  | { kind: 'single'; url?: string; options: RedisOptions }
  | { kind: 'cluster'; nodes: { host: string; port: number }[]; options: ClusterOptions };

function credentialsOf(url?: string): Pick<RedisOptions, 'username' | 'password' | 'db'> {
  if (!url) return {};
  const u = new URL(url);
  const db = u.pathname.replace(/^\//, '');
  return {
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: db ? Number(db) : undefined,
  };
}

const isTlsUrl = (url?: string) => url?.startsWith('rediss:') === true;

/**
 * Node TLS options for every TLS connection of a target. No `servername` unless one is
 * configured: Node then checks each certificate against the host it dials, which is right for
 * nodes found through Sentinel or Cluster (a seed's or the URL's host names none of them).
 */
export function tlsOptionsOf(settings: RedisTlsSettings): ConnectionOptions {
  const { ca, cert, key } = settings.pem ?? {};
  return {
    ...(ca !== undefined && { ca }),
    ...(cert !== undefined && { cert }),
    ...(key !== undefined && { key }),
    ...(settings.servername !== undefined && { servername: settings.servername }),
  };
}

/**
 * Maps a configured target to ioredis options. Blocking connections (BullMQ workers) must retry
 * forever (`maxRetriesPerRequest: null`); command connections fail a request after a few
 * reconnect attempts so that an API call answers instead of hanging while Redis is away.
 */
export function connectionPlan(target: RedisTarget, role: ConnectionRole, name: string): ConnectionPlan {
  const base: RedisOptions = {
    connectionName: name,
    maxRetriesPerRequest: role === 'blocking' ? null : 3,
    enableReadyCheck: true,
    // Reconnect with capped backoff; Drover processes are meant to survive Redis restarts. The cap
    // keeps a process back within 2 s of Redis, inside the 4 s misfire grace: a slot that comes due
    // once Redis is back still runs instead of being skipped as missed.
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 6), RECONNECT_CAP_MS),
  };
  switch (target.kind) {
    case 'url':
      return {
        kind: 'single',
        url: target.url,
        options: isTlsUrl(target.url) ? { ...base, tls: tlsOptionsOf(target) } : base,
      };
    case 'sentinel': {
      const creds = credentialsOf(target.url);
      const sentinels: Partial<SentinelAddress>[] = target.sentinels;
      const dataTls = isTlsUrl(target.url);
      return {
        kind: 'single',
        options: {
          ...base,
          ...creds,
          sentinels,
          name: target.name,
          sentinelUsername: creds.username,
          sentinelPassword: creds.password,
          // ioredis dials the master Sentinel names over plain TCP unless told twice.
          ...(dataTls && { tls: tlsOptionsOf(target), enableTLSForSentinelMode: true }),
          ...((target.sentinelTls ?? dataTls) && { sentinelTLS: tlsOptionsOf(target) }),
        },
      };
    }
    case 'cluster': {
      const creds = credentialsOf(target.url);
      const tls = isTlsUrl(target.url);
      return {
        kind: 'cluster',
        nodes: target.nodes,
        options: {
          redisOptions: {
            ...base,
            ...creds,
            db: undefined,
            ...(tls && { tls: tlsOptionsOf(target) }),
          },
          // ioredis resolves seed host names to IPs before dialling, which would check every seed's
          // certificate against an IP it was never issued for; dial the names as given instead.
          ...(tls && {
            dnsLookup: (address: string, done: (err: null, address: string) => void) => done(null, address),
          }),
          clusterRetryStrategy: base.retryStrategy,
          enableReadyCheck: true,
          maxRedirections: 16,
        },
      };
    }
  }
}
