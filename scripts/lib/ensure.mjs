// Shared by `npm start` and `npm test`: make a fresh clone runnable without manual steps.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('../..', import.meta.url).pathname;

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  return res.status === 0;
}

function has(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/** Installs npm dependencies when node_modules is missing or stale. */
export function ensureDependencies() {
  if (existsSync(join(root, 'node_modules', '.package-lock.json'))) return;
  console.log('drover: installing npm dependencies (first run)…');
  const ok = existsSync(join(root, 'package-lock.json'))
    ? run('npm', ['ci', '--no-audit', '--no-fund'])
    : run('npm', ['install']);
  if (!ok) {
    console.error('drover: npm install failed; fix the error above and run again.');
    process.exit(1);
  }
}

const INSTALL_HELP = `redis-server is required and was not found on PATH. Install it with one of:
  Debian/Ubuntu:  sudo apt-get update && sudo apt-get install -y redis-server
  macOS:          brew install redis
  Docker:         docker run -d --name drover-redis -p 127.0.0.1:6379:6379 redis:7  (then export REDIS_URL=redis://127.0.0.1:6379)`;

/** Makes sure `redis-server` exists: installs it with apt-get when that is possible, else explains. */
export function ensureRedisServer({ required = true } = {}) {
  if (has('redis-server')) return true;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const canSudo = !isRoot && has('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
  if (has('apt-get') && (isRoot || canSudo)) {
    console.log('drover: installing redis-server with apt-get…');
    const pre = isRoot ? [] : ['sudo', '-n'];
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const sh = (args) => run(pre[0] ?? args[0], pre.length ? [...pre.slice(1), ...args] : args.slice(1), { env });
    if (
      sh(['apt-get', 'update', '-qq']) &&
      sh(['apt-get', 'install', '-y', '-qq', 'redis-server']) &&
      has('redis-server')
    ) {
      // Debian starts a system redis on 6379; Drover runs its own, so leave that one alone.
      return true;
    }
  }
  if (!required) return false;
  console.error(INSTALL_HELP);
  process.exit(1);
}
