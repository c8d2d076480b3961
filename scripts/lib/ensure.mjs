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

function canInstallSystemPackages() {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const canSudo = !isRoot && has('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
  return has('apt-get') && (isRoot || canSudo) ? (isRoot ? [] : ['sudo', '-n']) : undefined;
}

/** apt-get installs `packages`; false when this machine cannot (no apt-get, not root, no sudo). */
function aptInstall(packages) {
  const pre = canInstallSystemPackages();
  if (!pre) return false;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const sh = (args) => run(pre[0] ?? args[0], pre.length ? [...pre.slice(1), ...args] : args.slice(1), { env });
  console.log(`drover: installing ${packages.join(' ')} with apt-get…`);
  return (
    sh(['apt-get', 'update', '-qq']) && sh(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...packages])
  );
}

/** Makes sure `redis-server` exists: installs it with apt-get when that is possible, else explains. */
export function ensureRedisServer({ required = true } = {}) {
  // Debian starts a system redis on 6379; Drover runs its own, so that one is left alone.
  if (has('redis-server') || (aptInstall(['redis-server']) && has('redis-server'))) return true;
  if (!required) return false;
  console.error(INSTALL_HELP);
  process.exit(1);
}

const present = (proof) => (proof.startsWith('/') ? existsSync(proof) : has(proof));

/**
 * What the test suites need from the machine besides Node: the command (or file) that proves it
 * is there, the Debian package that brings it, and which tests use it. `npm test` and `.ci/run`
 * both install from this one list.
 */
export const TEST_TOOLS = [
  { proof: 'redis-server', apt: 'redis-server', for: 'every int and e2e test' },
  { proof: 'openssl', apt: 'openssl', for: 'the TLS tests (a throwaway CA)' },
  { proof: 'promtool', apt: 'prometheus', for: 'the observability checks' },
  { proof: 'prometheus', apt: 'prometheus', for: 'the dashboard and alert proofs against a real Prometheus' },
  { proof: 'faketime', apt: 'faketime', for: 'the clock-skew e2e' },
  { proof: '/usr/bin/tini', apt: 'tini', for: 'the image e2e (the image runs the apps under /usr/bin/tini)' },
  { proof: '/usr/bin/chromium', apt: 'chromium', for: 'the web console in a real browser (test/console)' },
  { proof: 'tmux', apt: 'tmux', for: "the CLI's live views in a real terminal (test/cli)" },
];

/**
 * Installs what {@link TEST_TOOLS} lists and the machine lacks (apt-get as root or with sudo),
 * and kubectl for the manifest tests. Returns what is still missing, each with the tests that
 * need it; `strict` exits 1 instead.
 */
export function ensureTestTools({ strict = false } = {}) {
  ensureRedisServer();
  const packages = [...new Set(TEST_TOOLS.filter((t) => !present(t.proof)).map((t) => t.apt))];
  if (packages.length > 0) aptInstall(packages);
  // Debian's kubectl is too old for these kustomizations: scripts/k8s/install-kubectl.sh.
  if (!has('kubectl') && canInstallSystemPackages()) run('bash', [join(root, 'scripts', 'k8s', 'install-kubectl.sh')]);
  const missing = [
    ...TEST_TOOLS.filter((t) => !present(t.proof)),
    ...(has('kubectl')
      ? []
      : [{ proof: 'kubectl', apt: 'scripts/k8s/install-kubectl.sh', for: 'the Kubernetes manifest tests' }]),
  ];
  if (missing.length > 0) {
    const lines = missing.map((t) => `  ${t.proof} (${t.apt}): ${t.for}`).join('\n');
    console.error(`drover: these are missing, so the tests that use them will fail:\n${lines}`);
    if (strict) process.exit(1);
  }
  return missing;
}
