// `npm start`: a working local Drover cluster from a fresh clone in one command.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureDependencies, ensureRedisServer, root } from './lib/ensure.mjs';

const env = { ...process.env };
const home = env.DROVER_HOME ?? join(root, '.drover');
const port = env.PORT ?? '3000';

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
const banner = async () => {
  for (let i = 0; i < 600 && app.exitCode === null; i++) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) {
        console.log(`
  Drover is up (standalone: the scheduler, worker and api roles in one process)
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
};
void banner();

app.on('exit', async (code, signal) => {
  await redis?.stop();
  process.exit(code ?? (signal ? 1 : 0));
});
