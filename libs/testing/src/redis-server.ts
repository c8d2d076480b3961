import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
// A relative import: jest's global setup loads this file without the @drover/* path mapping.
import { localServerArgs } from '../../redis/src/server-settings';
import { freePort } from './free-port';
import { redisTlsArgs, type TestCerts } from './tls-certs';
import { waitFor } from './wait-for';

export interface RedisServerHandle {
  /** `redis://` (or `rediss://` with TLS), with the password when one is set. */
  url: string;
  port: number;
  pid: number;
  dir: string;
  /** ioredis options that reach this server (TLS material and password included). */
  clientOptions: RedisOptions;
  /** Sends `signal` (SIGTERM: clean shutdown; SIGKILL: a crash) and waits for the exit. Keeps `dir`. */
  kill(signal: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** SIGTERM if still running, then removes `dir` unless the caller passed it in. Idempotent. */
  stop(): Promise<void>;
}

export interface StartRedisOptions {
  port?: number;
  /** Use this data dir (to restart on the same AOF); the caller owns it and `stop()` leaves it. */
  dir?: string;
  /** AOF with fsync every second (`--appendonly yes --appendfsync everysec`); default no persistence. */
  appendOnly?: boolean;
  /** Serve TLS only (`--port 0`): a plain connection cannot reach it. */
  tls?: { certs: TestCerts; authClients?: 'yes' | 'no' | 'optional' };
  /** `requirepass` (and `masterauth`, so replicas of it and it as a replica authenticate). */
  password?: string;
  /** Start as a replica of this server. */
  replicaOf?: { host: string; port: number };
  extraArgs?: string[];
  /** Added to the server's environment (e.g. `fakeTimeEnv`: a server whose clock, so the cluster's, is elsewhere). */
  env?: Record<string, string>;
}

export const REDIS_INSTALL_HINT =
  'redis-server was not found on PATH. Install it: Debian/Ubuntu `sudo apt-get install -y redis-server`, ' +
  'macOS `brew install redis`, or Docker `docker run -p 6379:6379 redis:7`.';

/** True when a `redis-server` binary is on PATH. */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** A redis-server (or Sentinel) child whose output is kept (last 8 kB) for error messages. */
export interface RedisChild {
  child: ChildProcess;
  exited(): boolean;
  log(): string;
  /** Sends `signal` and resolves once the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

export function spawnRedis(args: string[], env?: Record<string, string>): RedisChild {
  if (!hasRedisServer()) throw new Error(REDIS_INSTALL_HINT);
  const child = spawn('redis-server', args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(env && { env: { ...process.env, ...env } }),
  });
  let log = '';
  const keep = (chunk: Buffer) => (log = (log + chunk.toString()).slice(-8_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exit.then(() => (exited = true));
  return {
    child,
    exited: () => exited,
    log: () => log,
    kill: async (signal) => {
      if (exited) return;
      child.kill(signal);
      await exit;
    },
  };
}

/**
 * Waits until `ready` (default: PING answers) holds on a connection made with `options`; when
 * `proc` is given, fails at once if that process exits.
 */
export async function probeRedis(
  what: string,
  options: RedisOptions,
  opts: { ready?: (client: Redis) => Promise<boolean>; timeoutMs?: number; proc?: RedisChild } = {},
): Promise<void> {
  const ready = opts.ready ?? (async (c: Redis) => (await c.ping()) === 'PONG');
  const died = () =>
    opts.proc?.exited() && new Error(`${what}: the process exited early: ${opts.proc.log().slice(-2_000)}`);
  const probe = new Redis({ ...options, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await waitFor(
      what,
      async () => {
        const err = died();
        if (err) throw err;
        if (probe.status !== 'ready') await probe.connect().catch(() => probe.disconnect());
        return ready(probe);
      },
      { timeoutMs: opts.timeoutMs ?? 10_000, intervalMs: 25 },
    );
  } catch (err) {
    throw died() || err;
  } finally {
    probe.disconnect();
  }
}

/** ioredis options for a client of a server started with `opts` on `port`. */
export function redisClientOptions(port: number, opts: Pick<StartRedisOptions, 'tls' | 'password'>): RedisOptions {
  return {
    host: '127.0.0.1',
    port,
    ...(opts.password !== undefined && { password: opts.password }),
    ...(opts.tls && { tls: { ca: opts.tls.certs.pem.ca, cert: opts.tls.certs.pem.cert, key: opts.tls.certs.pem.key } }),
  };
}

/**
 * Starts a private redis-server on a free loopback port with its own temp dir (or the given one)
 * and no persistence unless asked. Resolves once it answers PING. Never touches a Redis someone
 * else runs.
 */
export async function startRedisServer(opts: StartRedisOptions = {}): Promise<RedisServerHandle> {
  const port = opts.port ?? (await freePort());
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'drover-redis-'));
  const args = [
    // Plain TCP off (port 0) when the server is TLS-only: redisTlsArgs opens its TLS port.
    ...localServerArgs(opts.tls ? 0 : port, dir),
    ...(opts.tls ? redisTlsArgs(opts.tls.certs, port, opts.tls.authClients ?? 'yes') : []),
    '--save',
    '',
    ...(opts.appendOnly ? ['--appendonly', 'yes', '--appendfsync', 'everysec'] : ['--appendonly', 'no']),
    '--loglevel',
    'warning',
    ...(opts.password !== undefined ? ['--requirepass', opts.password, '--masterauth', opts.password] : []),
    ...(opts.replicaOf ? ['--replicaof', opts.replicaOf.host, String(opts.replicaOf.port)] : []),
    ...(opts.extraArgs ?? []),
  ];
  const proc = spawnRedis(args, opts.env);
  const clientOptions = redisClientOptions(port, opts);
  try {
    await probeRedis(`redis-server on :${port}`, clientOptions, { proc });
  } catch (err) {
    await proc.kill('SIGKILL');
    if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const auth = opts.password !== undefined ? `:${encodeURIComponent(opts.password)}@` : '';
  let stopped: Promise<void> | undefined;
  return {
    url: `${opts.tls ? 'rediss' : 'redis'}://${auth}127.0.0.1:${port}`,
    port,
    pid: proc.child.pid!,
    dir,
    clientOptions,
    kill: (signal) => proc.kill(signal),
    stop: () =>
      (stopped ??= proc.kill('SIGTERM').then(() => {
        if (!opts.dir) rmSync(dir, { recursive: true, force: true });
      })),
  };
}
