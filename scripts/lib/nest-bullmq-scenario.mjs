// The test of examples/nest-bullmq-migration (run by scripts/test-example.mjs): an app written the plain
// @nestjs/bullmq way, installed from the packed @drover/worker tarball, tested both ways on a real Redis.
// Before the switch it runs its processor on @nestjs/bullmq alone, and a producer-only deployment of it adds
// jobs no Worker takes. After the switch (DroverBullModule instead of BullModule.forRoot, DROVER_PREFIX=bull)
// next to the shipped scheduler and api: the jobs added before it are runs of source `bullmq` that succeed,
// the failing one is retried and parked after the queue's 3 attempts, the job the plain app ran shows as a
// succeeded run, /metrics carries them, and SIGTERM exits 0.
import { join } from 'node:path';
import { fail, installExample, run, runNode } from './example-kit.mjs';

const FINAL = new Set(['succeeded', 'parked', 'canceled', 'failed', 'skipped']);

export async function testNestBullmq({ work, tarballs, relock, testing, redis, step }) {
  step(`installing examples/nest-bullmq-migration (npm ci${relock ? ', relocked' : ''})`);
  const example = installExample(work, 'nest-bullmq-migration', tarballs, { relock });
  step('compiling examples/nest-bullmq-migration with its own tsconfig (strict) against the packed types');
  run('npm', ['run', '--silent', 'build'], example);

  const plain = async (args) => {
    const out = await runNode(
      join(example, 'dist', 'src', 'plain', 'main.js'),
      args,
      example,
      { REDIS_URL: redis.url },
      60_000,
    );
    process.stdout.write(`${out.text.trimEnd().replace(/^/gm, '  | ')}\n`);
    if (out.code !== 0) fail(`the plain app exited with ${out.code}`);
    return [...out.text.matchAll(/^added (\S+) (\S+)$/gm)].map((m) => m[2]);
  };

  step('before the switch: the plain @nestjs/bullmq app runs its processor');
  const [before] = await plain(['welcome:ada']);
  step('a producer-only deployment of it adds jobs no Worker takes (in the queue at the switch)');
  const [bea, cy, dan] = await plain(['--produce-only', 'welcome:bea', 'welcome:cy', 'bounce:dan']);
  if (!before || !dan) fail('the plain app did not print the ids of the jobs it added');

  const env = {
    REDIS_URL: redis.url,
    DROVER_PREFIX: 'bull',
    DROVER_CONFIG: join(example, 'drover.yaml'),
    LOG_LEVEL: 'info',
  };
  const apps = [];
  try {
    step('after the switch: a scheduler and an api (dist/apps) and the example on Drover');
    const settled = await Promise.allSettled([
      testing.startApp('scheduler', { env: { ...env, DROVER_INSTANCE_ID: 'nb-scheduler' }, readyTimeoutMs: 30_000 }),
      testing.startApp('api', { env: { ...env, DROVER_INSTANCE_ID: 'nb-api' }, readyTimeoutMs: 30_000 }),
      testing.startApp('mail-worker', {
        entry: join(example, 'dist', 'src', 'main.js'),
        env: { ...env, DROVER_INSTANCE_ID: 'nb-worker' },
        readyTimeoutMs: 30_000,
      }),
    ]);
    for (const s of settled) if (s.status === 'fulfilled') apps.push(s.value);
    const down = settled.find((s) => s.status === 'rejected');
    if (down) fail(`an app did not start: ${down.reason.message}`);
    const [, api, worker] = apps;
    const call = async (path) => {
      const res = await fetch(`${api.baseUrl}/api/v1${path}`);
      const json = await res.json().catch(() => undefined);
      if (!res.ok) fail(`GET ${path} answered ${res.status}: ${JSON.stringify(json)}`);
      return json;
    };
    const finished = (id) =>
      testing
        .waitFor(
          `run ${id} to end`,
          async () => {
            const res = await fetch(`${api.baseUrl}/api/v1/runs/${id}`);
            const r = res.ok ? await res.json() : undefined;
            return r && FINAL.has(r.status) && r;
          },
          { timeoutMs: 30_000, intervalMs: 100 },
        )
        .catch((err) => fail(err.message));

    step('the jobs added before the switch run under Drover, as runs of source bullmq');
    const [b, c, d, a] = await Promise.all([finished(bea), finished(cy), finished(dan), finished(before)]);
    same(
      { status: b.status, source: b.source, payload: b.payload, result: b.result, worker: b.worker },
      {
        status: 'succeeded',
        source: 'bullmq',
        payload: { to: 'bea@example.com' },
        result: { sent: 'bea@example.com' },
        worker: 'nb-worker',
      },
      'the run of a job added before the switch',
    );
    same(c.status, 'succeeded', 'the second job added before the switch');
    same(
      { status: d.status, attempt: d.attempt, maxAttempts: d.maxAttempts, errors: d.errors.map((e) => e.message) },
      { status: 'parked', attempt: 3, maxAttempts: 3, errors: Array(3).fill('mailbox of dan@example.com is full') },
      'the failing job (the queue gives it 3 attempts)',
    );
    same(
      { status: a.status, source: a.source },
      { status: 'succeeded', source: 'bullmq' },
      'the job the plain app ran',
    );
    const listed = (await call('/runs?queue=mail&page_size=10')).items.map((r) => r.id).sort();
    same(listed, [before, bea, cy, dan].sort(), 'GET /runs?queue=mail');

    step('the example’s /metrics carries the drover_* series of the processor’s runs');
    const metrics = await (await fetch(`${worker.baseUrl}/metrics`)).text();
    const series = metrics.split('\n').filter((l) => l.startsWith('drover_runs_total{') && l.includes('queue="mail"'));
    for (const status of ['succeeded', 'retried', 'parked']) {
      if (!series.some((l) => l.includes(`status="${status}"`) && Number(l.split(' ').pop()) > 0))
        fail(`/metrics has no drover_runs_total{queue="mail",status="${status}"} above 0`);
    }

    step('SIGTERM: the example drains and exits 0');
    const code = await worker.stop('SIGTERM');
    apps.splice(apps.indexOf(worker), 1);
    if (code !== 0) fail(`the example exited with ${code} on SIGTERM:\n${worker.output().slice(-2000)}`);
  } finally {
    await Promise.all(apps.map((a) => a.stop('SIGTERM')));
  }
}

function same(actual, expected, what) {
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    fail(`${what}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
}
