// `npm run bench`: builds, starts a private redis-server on a free loopback port, and runs every
// bench/*.bench.ts (compiled by swc into dist/bench) one after another against it. Benchmarks
// print their own figures; performance claims live here, never in timed tests.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ensureDependencies, ensureRedisServer, root } from './lib/ensure.mjs';

ensureDependencies();
ensureRedisServer();
const run = (cmd, args, env = {}) => {
  const res = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, env: { ...process.env, ...env } });
  if (res.status !== 0) process.exit(res.status ?? 1);
};
run(process.execPath, [join(root, 'scripts', 'build.mjs')]);
run(join(root, 'node_modules', '.bin', 'swc'), ['bench', '-d', 'dist', '--config-file', '.swcrc', '--quiet']);

const only = process.argv.slice(2);
const benches = readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
const { startRedisServer } = createRequire(import.meta.url)(
  join(root, 'dist', 'libs', 'testing', 'src', 'redis-server.js'),
);
const redis = await startRedisServer();
let failed = false;
try {
  for (const file of benches) {
    console.log(`\n=== ${file}`);
    const js = join(root, 'dist', 'bench', file.replace(/\.ts$/, '.js'));
    const res = spawnSync(process.execPath, [js], {
      stdio: 'inherit',
      cwd: root,
      env: { ...process.env, REDIS_URL: redis.url },
    });
    if (res.status !== 0) failed = true;
  }
} finally {
  await redis.stop();
}
process.exit(failed ? 1 : 0);
