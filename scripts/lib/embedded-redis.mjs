// The quick start's private redis-server under .drover/: started when REDIS_URL is unset.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';

// What Drover requires of a Redis server, from the one file libs/redis and the test harness read too.
const settings = JSON.parse(
  readFileSync(new URL('../../libs/redis/src/redis-requirements.json', import.meta.url), 'utf8'),
);
function localServerArgs(port, dir) {
  const pairs = { port: String(port), dir, ...settings.local, ...settings.required };
  return Object.entries(pairs).flatMap(([k, v]) => [`--${k}`, v]);
}

function portFree(port) {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

function pingOnce(port) {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    sock.setTimeout(500);
    sock.once('connect', () => sock.write('PING\r\n'));
    sock.once('data', (d) => {
      sock.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    sock.once('error', () => resolve(false));
    sock.once('timeout', () => {
      sock.destroy();
      resolve(false);
    });
  });
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts redis-server in its own process group (Ctrl-C must not kill it before the app drains). */
export async function startEmbeddedRedis(home, preferredPort = 6379) {
  const dir = join(home, 'redis');
  mkdirSync(dir, { recursive: true });
  const pidFile = join(home, 'redis.pid');
  if (existsSync(pidFile)) {
    // A previous quick start was killed hard: do not leave its server running.
    const stale = Number(readFileSync(pidFile, 'utf8'));
    if (
      stale > 0 &&
      alive(stale) &&
      /redis/.test(spawnSync('ps', ['-o', 'comm=', '-p', String(stale)]).stdout?.toString() ?? '')
    ) {
      process.kill(stale, 'SIGTERM');
    }
    rmSync(pidFile, { force: true });
  }
  let port = preferredPort;
  while (!(await portFree(port))) port += 1;
  const child = spawn(
    'redis-server',
    [...localServerArgs(port, dir), '--save', '60 1000', '--appendonly', 'no', '--logfile', join(home, 'redis.log')],
    { detached: true, stdio: 'ignore' },
  );
  writeFileSync(pidFile, String(child.pid));
  const deadline = Date.now() + 10_000;
  while (!(await pingOnce(port))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      throw new Error(`embedded redis-server did not start on port ${port}; see ${join(home, 'redis.log')}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    stop: async () => {
      if (child.exitCode === null && alive(child.pid)) {
        const done = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await done;
      }
      rmSync(pidFile, { force: true });
    },
    stopSync: () => {
      if (alive(child.pid)) process.kill(child.pid, 'SIGTERM');
      rmSync(pidFile, { force: true });
    },
  };
}
