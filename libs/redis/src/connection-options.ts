import type { ClusterOptions, RedisOptions, SentinelAddress } from 'ioredis';
import type { RedisTarget } from '@drover/config';

export type ConnectionRole = 'command' | 'blocking';

/** What ioredis needs to open one connection (or a cluster client) for a target. */
export type ConnectionPlan =
  | { kind: 'single'; url?: string; options: RedisOptions }
  | { kind: 'cluster'; nodes: { host: string; port: number }[]; options: ClusterOptions };

function credentialsOf(url?: string): Pick<RedisOptions, 'username' | 'password' | 'db' | 'tls'> {
  if (!url) return {};
  const u = new URL(url);
  const db = u.pathname.replace(/^\//, '');
  return {
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: db ? Number(db) : undefined,
    tls: u.protocol === 'rediss:' ? { servername: u.hostname } : undefined,
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
    // Reconnect with capped backoff; Drover processes are meant to survive Redis restarts.
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 6), 5_000),
  };
  switch (target.kind) {
    case 'url':
      return { kind: 'single', url: target.url, options: base };
    case 'sentinel': {
      const creds = credentialsOf(target.url);
      const sentinels: Partial<SentinelAddress>[] = target.sentinels;
      return {
        kind: 'single',
        options: {
          ...base,
          ...creds,
          sentinels,
          name: target.name,
          sentinelUsername: creds.username,
          sentinelPassword: creds.password,
        },
      };
    }
    case 'cluster': {
      const creds = credentialsOf(target.url);
      return {
        kind: 'cluster',
        nodes: target.nodes,
        options: {
          redisOptions: { ...base, ...creds, db: undefined },
          clusterRetryStrategy: base.retryStrategy,
          enableReadyCheck: true,
          maxRedirections: 16,
        },
      };
    }
  }
}
