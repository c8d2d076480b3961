import { Redis } from 'ioredis';
import { freePort } from './free-port';
import { probeRedis, startRedisServer, type RedisServerHandle } from './redis-server';
import type { TestCerts } from './tls-certs';

export interface RedisClusterHandle {
  /** The masters, each owning an equal share of the 16384 slots. */
  nodes: RedisServerHandle[];
  /** The REDIS_CLUSTER_NODES value naming every node: `127.0.0.1:<port>,…`. */
  seeds: string;
  /** Stops every node and removes their temp dirs. Idempotent. */
  stop(): Promise<void>;
}

const SLOTS = 16_384;

/**
 * A Redis Cluster of `masters` real redis-servers (no replicas) on free loopback ports, each with
 * its own temp dir; the cluster bus gets its own free port (and TLS with `tls`). Resolves once
 * every node reports `cluster_state:ok`. Always `stop()` it (afterAll).
 */
export async function startRedisCluster(
  opts: { masters?: number; tls?: { certs: TestCerts }; password?: string } = {},
): Promise<RedisClusterHandle> {
  const nodes: RedisServerHandle[] = [];
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= Promise.all(nodes.map((n) => n.stop())).then(() => undefined));
  const tls = opts.tls && { certs: opts.tls.certs, authClients: 'yes' as const };
  try {
    const buses: number[] = [];
    for (let i = 0; i < (opts.masters ?? 3); i++) {
      const bus = await freePort();
      buses.push(bus);
      const extraArgs = [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-port',
        String(bus),
      ];
      if (tls) extraArgs.push('--tls-cluster', 'yes');
      nodes.push(await startRedisServer({ tls, password: opts.password, extraArgs }));
    }
    const share = Math.ceil(SLOTS / nodes.length);
    await Promise.all(
      nodes.map(async (node, i) => {
        const c = new Redis({ ...node.clientOptions, maxRetriesPerRequest: 0 });
        try {
          const last = Math.min(SLOTS, (i + 1) * share) - 1;
          await c.call('CLUSTER', 'ADDSLOTSRANGE', String(i * share), String(last));
          if (i > 0) await c.call('CLUSTER', 'MEET', '127.0.0.1', String(nodes[0]!.port), String(buses[0]));
        } finally {
          c.disconnect();
        }
      }),
    );
    for (const node of nodes) {
      await probeRedis(`cluster node :${node.port} to be ok`, node.clientOptions, {
        timeoutMs: 20_000,
        ready: async (c) => /cluster_state:ok/.test((await c.call('CLUSTER', 'INFO')) as string),
      });
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { nodes, seeds: nodes.map((n) => `127.0.0.1:${n.port}`).join(','), stop };
}
