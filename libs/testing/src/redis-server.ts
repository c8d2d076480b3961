import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
// A relative import: jest's global setup loads this file without the @drover/* path mapping.
import { localServerArgs } from '../../redis/src/server-settings';
import { freePort } from './free-port';
import { waitFor } from './wait-for';

export interface RedisServerHandle {
  url: string;
  port: number;
  pid: number;
  dir: string;
  stop(): Promise<void>;
}

export const REDIS_INSTALL_HINT =
  'redis-server was not found on PATH. Install it: Debian/Ubuntu `sudo apt-get install -y redis-server`, ' +
  'macOS `brew install redis`, or Docker `docker run -p 6379:6379 redis:7`.';

/** True when a `redis-server` binary is on PATH. */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Starts a private redis-server on a free loopback port with its own temp dir and no
 * persistence. Resolves once it answers PING. Never touches a Redis someone else runs.
 */
export async function startRedisServer(opts: { port?: number; extraArgs?: string[] } = {}): Promise<RedisServerHandle> {
  if (!hasRedisServer()) throw new Error(REDIS_INSTALL_HINT);
  const port = opts.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'drover-redis-'));
  const args = [
    ...localServerArgs(port, dir),
    '--save',
    '',
    '--appendonly',
    'no',
    '--loglevel',
    'warning',
    ...(opts.extraArgs ?? []),
  ];
  const child: ChildProcess = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'inherit'] });
  let exited = false;
  child.once('exit', () => (exited = true));
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await waitFor(
      `redis-server on :${port}`,
      async () => {
        if (exited) throw new Error(`redis-server exited early (port ${port} taken?)`);
        if (probe.status !== 'ready') await probe.connect().catch(() => probe.disconnect());
        return (await probe.ping()) === 'PONG';
      },
      { timeoutMs: 10_000, intervalMs: 25 },
    );
  } finally {
    probe.disconnect();
  }
  return {
    url,
    port,
    pid: child.pid!,
    dir,
    stop: async () => {
      if (!exited) {
        const done = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await done;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
