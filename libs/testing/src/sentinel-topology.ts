import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { freePort } from './free-port';
import {
  probeRedis,
  redisClientOptions,
  spawnRedis,
  startRedisServer,
  type RedisChild,
  type RedisServerHandle,
} from './redis-server';
import type { TestCerts } from './tls-certs';
import { waitFor } from './wait-for';

export interface SentinelHandle {
  port: number;
  pid: number;
  kill(signal: 'SIGTERM' | 'SIGKILL'): Promise<void>;
}

export interface SentinelTopology {
  masterName: string;
  /** The master the topology started with (index 0) and its replicas. */
  nodes: RedisServerHandle[];
  sentinels: SentinelHandle[];
  /** The REDIS_SENTINELS value: `127.0.0.1:<port>,…`. */
  sentinelList: string;
  /** ioredis options reaching a data node or a Sentinel on `port` (TLS material, password). */
  clientOptions(port: number): RedisOptions;
  /** The node every Sentinel names as master (rejects while they disagree or cannot say). */
  masterPort(): Promise<number>;
  /**
   * Waits until every replica has acknowledged the master's whole replication stream, so that
   * killing the master now loses no write to asynchronous replication (a test wants that loss out
   * of the way; production cannot rule it out — see docs/redis.md).
   */
  waitForReplicasInSync(timeoutMs?: number): Promise<void>;
  /** Waits until every Sentinel names a master other than `oldPort` and that node says it is one. */
  waitForNewMaster(oldPort: number, timeoutMs?: number): Promise<number>;
  /** Stops every process and removes their temp dirs. Idempotent. */
  stop(): Promise<void>;
}

export interface SentinelTopologyOptions {
  masterName?: string;
  /** Default 1. */
  replicas?: number;
  /** Default 3; the quorum is a majority. */
  sentinels?: number;
  /** Every node and Sentinel speaks TLS only. */
  tls?: { certs: TestCerts };
  /** `requirepass` of every node and Sentinel (Drover's REDIS_URL credentials serve both). */
  password?: string;
  /** How long a master must be silent before Sentinels call it down. Default 1000 ms. */
  downAfterMs?: number;
}

function sentinelConfig(o: {
  port: number;
  dir: string;
  name: string;
  masterPort: number;
  quorum: number;
  downAfterMs: number;
  tls?: TestCerts;
  password?: string;
}): string {
  const lines = [
    'bind 127.0.0.1',
    `dir ${o.dir}`,
    'loglevel warning',
    ...(o.tls
      ? [
          'port 0',
          `tls-port ${o.port}`,
          `tls-cert-file ${o.tls.serverCertFile}`,
          `tls-key-file ${o.tls.serverKeyFile}`,
          `tls-ca-cert-file ${o.tls.caFile}`,
          'tls-auth-clients yes',
          // Sentinels dial masters, replicas and each other over TLS only with this.
          'tls-replication yes',
        ]
      : [`port ${o.port}`]),
    `sentinel monitor ${o.name} 127.0.0.1 ${o.masterPort} ${o.quorum}`,
    `sentinel down-after-milliseconds ${o.name} ${o.downAfterMs}`,
    `sentinel failover-timeout ${o.name} 10000`,
    `sentinel parallel-syncs ${o.name} 1`,
    ...(o.password !== undefined
      ? [
          `requirepass ${o.password}`,
          `sentinel auth-pass ${o.name} ${o.password}`,
          `sentinel sentinel-pass ${o.password}`,
        ]
      : []),
  ];
  return `${lines.join('\n')}\n`;
}

async function startSentinel(config: (port: number, dir: string) => string): Promise<{
  handle: SentinelHandle;
  proc: RedisChild;
  dir: string;
}> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'drover-sentinel-'));
  // Sentinel rewrites its config file as it learns the topology, so it lives in the temp dir.
  const file = join(dir, 'sentinel.conf');
  writeFileSync(file, config(port, dir));
  const proc = spawnRedis([file, '--sentinel']);
  return { handle: { port, pid: proc.child.pid!, kill: (s) => proc.kill(s) }, proc, dir };
}

/**
 * A master, its replicas and Sentinels watching them, each a real process on a free loopback port
 * with its own temp dir. Resolves once every replica is in sync and every Sentinel can reach the
 * quorum to fail over, so a test may kill the master at once. Always `stop()` it (afterAll).
 */
export async function startSentinelTopology(opts: SentinelTopologyOptions = {}): Promise<SentinelTopology> {
  const name = opts.masterName ?? 'drover-test';
  const count = opts.sentinels ?? 3;
  const tls = opts.tls && { certs: opts.tls.certs, authClients: 'yes' as const };
  const clientOptions = (port: number) => redisClientOptions(port, { tls, password: opts.password });
  const nodes: RedisServerHandle[] = [];
  const sentinels: { handle: SentinelHandle; proc: RedisChild; dir: string }[] = [];
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await Promise.all(sentinels.map((s) => s.proc.kill('SIGKILL')));
      sentinels.forEach((s) => rmSync(s.dir, { recursive: true, force: true }));
      await Promise.all(nodes.map((n) => n.kill('SIGKILL').then(() => n.stop())));
    })());

  try {
    const master = await startRedisServer({ tls, password: opts.password });
    nodes.push(master);
    for (let i = 0; i < (opts.replicas ?? 1); i++) {
      const replicaOf = { host: '127.0.0.1', port: master.port };
      nodes.push(await startRedisServer({ tls, password: opts.password, replicaOf }));
    }
    for (const replica of nodes.slice(1)) {
      await probeRedis(`replica :${replica.port} to sync`, replica.clientOptions, {
        ready: async (c) => /master_link_status:up/.test(await c.info('replication')),
      });
    }
    for (let i = 0; i < count; i++) {
      const started = await startSentinel((port, dir) =>
        sentinelConfig({
          port,
          dir,
          name,
          masterPort: master.port,
          quorum: Math.floor(count / 2) + 1,
          downAfterMs: opts.downAfterMs ?? 1_000,
          tls: opts.tls?.certs,
          password: opts.password,
        }),
      );
      sentinels.push(started);
    }
    const replicas = nodes.length - 1;
    for (const s of sentinels) {
      await probeRedis(`sentinel :${s.handle.port} to know the topology`, clientOptions(s.handle.port), {
        proc: s.proc,
        timeoutMs: 20_000,
        ready: async (c) => {
          const known = (await c.call('SENTINEL', 'REPLICAS', name)) as unknown[];
          const peers = (await c.call('SENTINEL', 'SENTINELS', name)) as unknown[];
          return known.length >= replicas && peers.length >= count - 1;
        },
      });
    }
  } catch (err) {
    await stop();
    throw err;
  }

  const askAll = async (): Promise<number[]> =>
    Promise.all(
      sentinels.map(async (s) => {
        const c = new Redis({ ...clientOptions(s.handle.port), maxRetriesPerRequest: 0, retryStrategy: () => null });
        c.on('error', () => undefined);
        try {
          const addr = (await c.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name)) as [string, string];
          return Number(addr[1]);
        } finally {
          c.disconnect();
        }
      }),
    );
  const masterPort = async () => {
    const ports = await askAll();
    if (new Set(ports).size !== 1) throw new Error(`sentinels disagree on the master: ${ports.join(', ')}`);
    return ports[0]!;
  };
  return {
    masterName: name,
    nodes,
    sentinels: sentinels.map((s) => s.handle),
    sentinelList: sentinels.map((s) => `127.0.0.1:${s.handle.port}`).join(','),
    clientOptions,
    masterPort,
    waitForReplicasInSync: async (timeoutMs = 10_000) => {
      const port = await masterPort();
      await probeRedis(`replicas of :${port} to be in sync`, clientOptions(port), {
        timeoutMs,
        ready: async (c) => {
          const info = await c.info('replication');
          const offset = /master_repl_offset:(\d+)/.exec(info)?.[1];
          const replicas = [...info.matchAll(/^slave\d+:.*offset=(\d+)/gm)].map((m) => m[1]);
          return replicas.length === nodes.length - 1 && replicas.every((o) => o === offset);
        },
      });
    },
    waitForNewMaster: (oldPort, timeoutMs = 20_000) =>
      waitFor(
        `sentinels to promote a new master instead of :${oldPort}`,
        async () => {
          const port = await masterPort();
          if (port === oldPort) return undefined;
          const c = new Redis({ ...clientOptions(port), maxRetriesPerRequest: 0, retryStrategy: () => null });
          c.on('error', () => undefined);
          try {
            const role = (await c.call('ROLE')) as [string];
            return role[0] === 'master' ? port : undefined;
          } finally {
            c.disconnect();
          }
        },
        { timeoutMs, intervalMs: 100 },
      ),
    stop,
  };
}
