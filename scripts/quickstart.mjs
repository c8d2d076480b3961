// `npm start`: a working local Drover cluster from a fresh clone in one command.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { choosePort } from './lib/app-port.mjs';
import { ensureDependencies, ensureRedisServer, root } from './lib/ensure.mjs';

const env = { ...process.env };
const home = env.DROVER_HOME ?? join(root, '.drover');
// First, before any build: a taken port is one line, not a stack after a minute of work.
const chosen = await choosePort(env.PORT);
if (chosen.error) {
  console.error(`drover: ${chosen.error}`);
  process.exit(1);
}
if (chosen.note) console.log(`drover: ${chosen.note}`);
const port = chosen.port;

ensureDependencies();
if (!env.REDIS_URL) ensureRedisServer();

if (env.QUICKSTART_SKIP_BUILD !== '1') {
  const built = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit', cwd: root });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const { startEmbeddedRedis } = await import('./lib/embedded-redis.mjs');
let redis;
if (!env.REDIS_URL) {
  redis = await startEmbeddedRedis(home);
  env.REDIS_URL = redis.url;
  console.log(`drover: embedded redis-server on ${redis.url} (data in ${join(home, 'redis')})`);
}
env.DROVER_CONFIG ??= join(root, 'examples', 'drover.yaml');
env.LOG_FORMAT ??= 'pretty';
// Debug shows one line per successful run: what a person trying Drover wants to see.
env.LOG_LEVEL ??= 'debug';
env.PORT = port;

const app = spawn(process.execPath, [join(root, 'dist', 'apps', 'standalone', 'main.js')], {
  cwd: root,
  env,
  stdio: 'inherit',
  detached: true, // its own process group: Ctrl-C reaches it once, through us
});

let stopping = false;
const stop = (signal) => {
  if (stopping) return;
  stopping = true;
  console.log(`\ndrover: ${signal}: stopping the cluster (in-flight runs may finish)…`);
  if (app.exitCode === null) app.kill('SIGTERM');
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('exit', () => {
  if (app.exitCode === null && app.pid) {
    try {
      process.kill(app.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  redis?.stopSync();
});

// The CLI defaults to port 3000; any other port has to be named.
const cliTarget = port === '3000' ? '' : ` --api-url http://127.0.0.1:${port}`;

/**
 * Whether the app this script started answers on the port, and is ready. Drover's /healthz names the
 * pid of the process answering, so another server on the port (or an older Drover) does not count.
 */
async function verified() {
  const health = await fetch(`http://127.0.0.1:${port}/healthz`);
  const body = health.ok ? await health.json().catch(() => undefined) : undefined;
  if (body?.info?.process?.pid !== app.pid) return false;
  return (await fetch(`http://127.0.0.1:${port}/readyz`)).ok;
}

const BANNER_WAIT_MS = 120_000;
const banner = async () => {
  const deadline = Date.now() + BANNER_WAIT_MS;
  while (app.exitCode === null && Date.now() < deadline) {
    try {
      if (await verified()) {
        console.log(`
  Drover is up: the standalone app (pid ${app.pid}: the scheduler, worker and api roles in one process)
  answers on port ${port}, and its /readyz says Redis answers and every role is ready.
    console  http://127.0.0.1:${port}/ui   (the web console; development mode: no login from this machine)
    api      http://127.0.0.1:${port}/api/v1/cluster   (docs/api.md; development mode: loopback, no token)
    health   http://127.0.0.1:${port}/healthz   ready  http://127.0.0.1:${port}/readyz
    metrics  http://127.0.0.1:${port}/metrics
    policy   ${env.DROVER_CONFIG}
  Try:  npx drover${cliTarget} status
        npx drover${cliTarget} routines trigger report-on-demand --wait        (docs/cli.md)
        curl -s -X POST http://127.0.0.1:${port}/api/v1/routines/report-on-demand/trigger
  Runs of the demo routines show up in the log lines below. Ctrl-C stops everything, Redis included.
`);
        return;
      }
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  if (app.exitCode === null) {
    console.log(
      `drover: the app has not become ready on port ${port} in ${BANNER_WAIT_MS / 1000} s; see the log above.`,
    );
  }
};
void banner();

app.on('exit', async (code, signal) => {
  await redis?.stop();
  process.exit(code ?? (signal ? 1 : 0));
});
