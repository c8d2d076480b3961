// `npm run test:example`: the outside-consumer tests. Packs Drover's packages (`npm run pack`), installs a
// copy of each example (in a temp dir, so concurrent runs never share a node_modules) from its own
// package.json and lockfile (npm ci) the way another team would, compiles it with its own strict
// tsconfig against the packed types, then runs it against a private redis-server and the shipped apps
// (dist/apps/*):
//   - examples/nest-producer enqueues a `sleep` run through @drover/client; the shipped worker runs it;
//   - examples/nest-worker, a worker app of the team's own on @drover/worker, runs a routine of its policy
//     file, the producer's `example.greet` enqueue, retries and parks, serves drover_* metrics and drains
//     on SIGTERM (scripts/lib/nest-worker-scenario.mjs);
//   - examples/nest-bullmq-migration, an app written the plain @nestjs/bullmq way, runs on @nestjs/bullmq
//     alone, then switched to Drover by its module imports consumes the jobs left in its queue, retries and
//     parks, and shows them as runs (scripts/lib/nest-bullmq-scenario.mjs).
//
//   node scripts/test-example.mjs            run the tests (builds dist/ first if it is missing)
//   node scripts/test-example.mjs --relock   point the examples at the tarballs of the current version and
//                                            rewrite their package-lock.json, then run the tests
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ExampleFailure, fail, installExample, makeWork, packInto, root, run, runNode } from './lib/example-kit.mjs';
import { testNestWorker } from './lib/nest-worker-scenario.mjs';
import { testNestBullmq } from './lib/nest-bullmq-scenario.mjs';

const work = makeWork();
const relock = process.argv.includes('--relock');
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const step = (what) => console.log(`[example ${elapsed()}] ${what}`);

try {
  if (!existsSync(join(root, 'dist', 'apps', 'worker', 'main.js'))) {
    step('building dist/ (npm run build)');
    run(process.execPath, [join(root, 'scripts', 'build.mjs')], root);
  }
  step('packing the packages (npm run pack)');
  const tarballs = packInto(work);
  step(`installing examples/nest-producer (npm ci${relock ? ', relocked' : ''})`);
  const example = installExample(work, 'nest-producer', tarballs, { relock });
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

    step('running the example: node dist/nest-producer/src/main.js');
    const out = await runNode(
      join(example, 'dist', 'nest-producer', 'src', 'main.js'),
      [],
      example,
      { REDIS_URL: redis.url, DROVER_PREFIX: 'example' },
      60_000,
    );
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

    await testNestWorker({ work, tarballs, relock, testing, redis, producer: example, step });
    console.log(`example nest-worker: passed in ${elapsed()}`);

    await testNestBullmq({ work, tarballs, relock, testing, redis, step });
    console.log(`example nest-bullmq-migration: passed in ${elapsed()}`);
  } finally {
    await Promise.all(apps.map((a) => a.stop('SIGTERM')));
    await redis.stop();
  }
} catch (err) {
  if (!(err instanceof ExampleFailure)) throw err;
  console.error(`example: FAILED after ${elapsed()}: ${err.message}`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
