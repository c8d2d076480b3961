// `npm run test:example`: the outside-consumer test of @drover/client. Packs the client into a
// tarball, installs a copy of examples/nest-producer (in a temp dir, so concurrent runs never share
// a node_modules) from its own package.json and lockfile (npm ci) the way another team would,
// compiles it with its own strict tsconfig against the packed types, then starts
// a private redis-server, a real scheduler (it applies the policy file's queues to Redis) and a real
// worker (dist/apps/*), runs the example and checks that it printed the handler's result and exited 0.
//
//   node scripts/test-example.mjs            run the test (builds dist/ first if it is missing)
//   node scripts/test-example.mjs --relock   rewrite the example's package-lock.json after changing
//                                            its dependencies (or the client's), then run the test
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const source = join(root, 'examples', 'nest-producer');
const work = mkdtempSync(join(tmpdir(), 'drover-example-'));
const example = join(work, 'nest-producer');
const lockFile = join(example, 'package-lock.json');
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const step = (what) => console.log(`[example ${elapsed()}] ${what}`);

function run(cmd, args, cwd) {
  const res = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (res.status !== 0)
    fail(`${cmd} ${args.join(' ')} (in ${relative(root, cwd) || '.'}) failed:\n${res.stdout}${res.stderr}`);
  return res.stdout;
}

class ExampleFailure extends Error {}

/** Throws: the `finally` below still stops the apps and Redis, then the script exits 1. */
function fail(message) {
  throw new ExampleFailure(message);
}

try {
  if (!existsSync(join(root, 'dist', 'apps', 'worker', 'main.js'))) {
    step('building dist/ (npm run build)');
    run(process.execPath, [join(root, 'scripts', 'build.mjs')], root);
  }

  // The example as committed; what a developer built or installed in place is left out.
  cpSync(source, example, {
    recursive: true,
    filter: (src) => !/[/\\](node_modules|dist|vendor)$/.test(src),
  });
  step('packing @drover/client');
  const tarball = run(
    process.execPath,
    [join(root, 'scripts', 'pack-client.mjs'), '--out', join(example, 'vendor')],
    root,
  )
    .trim()
    .split('\n')
    .pop();

  if (process.argv.includes('--relock')) {
    step('rewriting the example lockfile');
    rmSync(lockFile, { force: true });
    run('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], example);
    // With an integrity, npm ci installs a cached older build of the tarball instead of the new one.
    const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
    delete lock.packages['node_modules/@drover/client'].integrity;
    writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`);
    copyFileSync(lockFile, join(source, 'package-lock.json'));
  }
  const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
  if (lock.packages?.['node_modules/@drover/client']?.integrity) {
    fail(
      'examples/nest-producer/package-lock.json pins an integrity for @drover/client, so npm would install a cached ' +
        'older build; run `node scripts/test-example.mjs --relock`',
    );
  }

  step('npm ci in examples/nest-producer');
  run('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], example);
  assertInstalledIsPacked(tarball);
  step('compiling the example with its own tsconfig (strict) against the packed types');
  run('npm', ['run', '--silent', 'build'], example);

  const testing = createRequire(import.meta.url)(join(root, 'dist', 'libs', 'testing', 'src', 'index.js'));
  const redis = await testing.startRedisServer();
  const apps = [];
  try {
    const config = join(work, 'drover.yaml');
    writeFileSync(config, 'queues:\n  - name: default\n    concurrency: 2\nroutines: []\n');
    const env = { REDIS_URL: redis.url, DROVER_PREFIX: 'example', DROVER_CONFIG: config, LOG_LEVEL: 'info' };
    step('starting a scheduler and a worker (dist/apps)');
    const starting = ['scheduler', 'worker'].map((name) =>
      testing.startApp(name, { env: { ...env, DROVER_INSTANCE_ID: `example-${name}` }, readyTimeoutMs: 30_000 }),
    );
    // Every app that started is stopped, even when the other one failed to.
    const settled = await Promise.allSettled(starting);
    for (const s of settled) if (s.status === 'fulfilled') apps.push(s.value);
    const down = settled.find((s) => s.status === 'rejected');
    if (down) fail(`an app did not start: ${down.reason.message}`);
    const scheduler = settled[0].value;
    // Producers need the queue policy in Redis; the leading scheduler writes it from DROVER_CONFIG.
    await scheduler.waitForLog(/applied DROVER_CONFIG/, 30_000);

    step('running the example: node dist/main.js');
    const out = await runExample({ REDIS_URL: redis.url, DROVER_PREFIX: 'example' }, 60_000);
    process.stdout.write(`${out.text.trimEnd().replace(/^/gm, '  | ')}\n`);
    if (out.code !== 0) fail(`the example exited with ${out.code}`);
    const printed = /^result: (\{.*\}) \(slept (\d+) ms\)$/m.exec(out.text);
    if (!printed) fail('the example did not print "result: {...}"');
    if (!/^run k-[0-9a-f]{32} succeeded after 1 attempt\(s\)$/m.test(out.text))
      fail('the example did not print its run');
    // `sleep` answers {sleptMs: ms}: the handler's own result reached the producer through Redis.
    if (JSON.stringify(JSON.parse(printed[1])) !== JSON.stringify({ sleptMs: 150 })) {
      fail(`the example printed ${printed[1]}, not the handler's result {"sleptMs":150}`);
    }
    console.log(`example nest-producer: passed in ${elapsed()}`);
  } finally {
    await Promise.all(apps.map((a) => a.stop('SIGTERM')));
    await redis.stop();
  }
} catch (err) {
  if (!(err instanceof ExampleFailure)) throw err;
  console.error(`example nest-producer: FAILED after ${elapsed()}: ${err.message}`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** The installed package must be exactly the tarball just packed (never a cached older build). */
function assertInstalledIsPacked(tgz) {
  const unpacked = mkdtempSync(join(tmpdir(), 'drover-client-unpacked-'));
  try {
    run('tar', ['-xzf', tgz, '-C', unpacked], root);
    const packed = join(unpacked, 'package');
    const installed = join(example, 'node_modules', '@drover', 'client');
    for (const file of walk(packed)) {
      const there = join(installed, relative(packed, file));
      if (!existsSync(there) || digest(there) !== digest(file)) {
        fail(`node_modules/@drover/client/${relative(packed, file)} differs from the packed tarball`);
      }
    }
  } finally {
    rmSync(unpacked, { recursive: true, force: true });
  }
}

function walk(dir) {
  return readdirSync(dir).flatMap((e) => (statSync(join(dir, e)).isDirectory() ? walk(join(dir, e)) : [join(dir, e)]));
}

function digest(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function runExample(env, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(example, 'dist', 'main.js')], {
      cwd: example,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (c) => (text += c));
    child.stderr.on('data', (c) => (text += c));
    const timer = setTimeout(() => {
      text += `\n(killed after ${timeoutMs} ms)\n`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, text });
    });
  });
}
