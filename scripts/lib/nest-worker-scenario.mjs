// The test of examples/nest-worker (run by scripts/test-example.mjs): the team's own worker app, installed
// from the packed tarballs only, next to the shipped scheduler and api (dist/apps) on a real Redis, with
// examples/nest-worker/drover.yaml as the cluster's policy file. It proves, in this order: a routine of the
// policy file runs the app's handler; an enqueue from examples/nest-producer (the shared contract) runs
// there; a handler that fails until its third attempt succeeds on it with 3 attempts and is parked with 2;
// the app's /metrics carries the drover_* series of those runs; SIGTERM lets a run in flight finish, then
// the app exits 0.
import { join } from 'node:path';
import { fail, installExample, run, runNode } from './example-kit.mjs';

const FINAL = new Set(['succeeded', 'parked', 'canceled', 'failed', 'skipped']);

export async function testNestWorker({ work, tarballs, relock, testing, redis, producer, step }) {
  step(`installing examples/nest-worker (npm ci${relock ? ', relocked' : ''})`);
  const example = installExample(work, 'nest-worker', tarballs, { relock });
  step('compiling examples/nest-worker with its own tsconfig (strict) against the packed types');
  run('npm', ['run', '--silent', 'build'], example);

  const env = {
    REDIS_URL: redis.url,
    DROVER_PREFIX: 'nest-worker',
    DROVER_CONFIG: join(example, 'drover.yaml'),
    LOG_LEVEL: 'info',
  };
  const apps = [];
  try {
    step('starting a scheduler and an api (dist/apps) and the example worker');
    const starting = [
      testing.startApp('scheduler', { env: { ...env, DROVER_INSTANCE_ID: 'nw-scheduler' }, readyTimeoutMs: 30_000 }),
      testing.startApp('api', { env: { ...env, DROVER_INSTANCE_ID: 'nw-api' }, readyTimeoutMs: 30_000 }),
      testing.startApp('nest-worker', {
        entry: join(example, 'dist', 'nest-worker', 'src', 'main.js'),
        env: { ...env, DROVER_INSTANCE_ID: 'nw-worker', DROVER_QUEUES: 'greetings' },
        readyTimeoutMs: 30_000,
      }),
    ];
    const settled = await Promise.allSettled(starting);
    for (const s of settled) if (s.status === 'fulfilled') apps.push(s.value);
    const down = settled.find((s) => s.status === 'rejected');
    if (down) fail(`an app did not start: ${down.reason.message}`);
    const [, api, worker] = apps;
    const call = async (method, path, body) => {
      const res = await fetch(`${api.baseUrl}/api/v1${path}`, {
        method,
        headers: body ? { 'content-type': 'application/json' } : {},
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = await res.json().catch(() => undefined);
      if (!res.ok) fail(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
      return json;
    };
    const until = (what, probe, timeoutMs = 30_000) =>
      testing.waitFor(what, probe, { timeoutMs, intervalMs: 100 }).catch((err) => fail(err.message));
    const finished = (id) =>
      until(`run ${id} to end`, async () => {
        const r = await call('GET', `/runs/${id}`);
        return FINAL.has(r.status) && r;
      });

    step('a routine of the policy file runs the worker app’s handler');
    const fromRoutine = await until('a succeeded run of routine greet-the-team', async () => {
      const { items } = await call('GET', '/routines/greet-the-team/runs?status=succeeded');
      return items[0];
    });
    const routineRun = await call('GET', `/runs/${fromRoutine.id}`);
    same(routineRun.result, { text: 'Hello, team!', by: 'nest-worker' }, 'the routine run’s result');

    step('examples/nest-producer enqueues example.greet; the worker app runs it');
    const out = await runNode(
      join(producer, 'dist', 'nest-producer', 'src', 'main.js'),
      ['greet', 'Ada'],
      producer,
      { REDIS_URL: redis.url, DROVER_PREFIX: 'nest-worker' },
      60_000,
    );
    process.stdout.write(`${out.text.trimEnd().replace(/^/gm, '  | ')}\n`);
    if (out.code !== 0) fail(`the producer exited with ${out.code}`);
    if (!/^greeting: Hello, Ada! \(by nest-worker\)$/m.test(out.text))
      fail('the producer did not print the worker app’s greeting');

    step('example.flaky: succeeds on its third attempt, parked when given two');
    const { runId: third } = await call('POST', '/jobs', {
      jobType: 'example.flaky',
      queue: 'greetings',
      payload: { key: 'third' },
    });
    const { runId: two } = await call('POST', '/jobs', {
      jobType: 'example.flaky',
      queue: 'greetings',
      payload: { key: 'two' },
      maxAttempts: 2,
    });
    const [ok, parked] = await Promise.all([finished(third), finished(two)]);
    same(
      { status: ok.status, attempt: ok.attempt, result: ok.result },
      { status: 'succeeded', attempt: 3, result: { key: 'third', attempt: 3 } },
      'the 3-attempt run',
    );
    same(
      { status: parked.status, attempt: parked.attempt, errors: parked.errors.map((e) => e.message) },
      { status: 'parked', attempt: 2, errors: ['two: not yet (attempt 1)', 'two: not yet (attempt 2)'] },
      'the 2-attempt run',
    );

    step('example.tally: the retry resumes from the last checkpoint, shown on the run');
    const { runId: tally } = await call('POST', '/jobs', {
      jobType: 'example.tally',
      queue: 'greetings',
      payload: { count: 50, failAt: 25 },
    });
    const tallied = await finished(tally);
    same(
      { status: tallied.status, attempt: tallied.attempt, result: tallied.result, state: tallied.checkpoint?.state },
      { status: 'succeeded', attempt: 2, result: { total: 1275, resumedFrom: 21 }, state: { next: 51, total: 1275 } },
      'the tally run',
    );

    step('example.sum-up: a run adds children, waits, and continues with their results');
    const { runId: sum } = await call('POST', '/jobs', {
      jobType: 'example.sum-up',
      queue: 'greetings',
      payload: { counts: [10, 20, 30] },
    });
    const summed = await finished(sum);
    same(
      {
        status: summed.status,
        attempt: summed.attempt,
        result: summed.result,
        children: summed.flow?.children?.map((c) => c.status),
      },
      {
        status: 'succeeded',
        attempt: 1,
        result: { total: 55 + 210 + 465, children: 3 },
        children: ['succeeded', 'succeeded', 'succeeded'],
      },
      'the sum-up run',
    );

    step('the worker app’s /metrics carries the drover_* series');
    const metrics = await (await fetch(`${worker.baseUrl}/metrics`)).text();
    for (const status of ['succeeded', 'retried', 'parked']) {
      if (!new RegExp(`^drover_runs_total\\{[^}]*status="${status}"[^}]*\\} [1-9]`, 'm').test(metrics))
        fail(`/metrics has no drover_runs_total{status="${status}"} above 0`);
    }
    if (!/^drover_run_duration_seconds_count\{[^}]*\} [1-9]/m.test(metrics))
      fail('/metrics has no drover_run_duration_seconds observations');

    step('SIGTERM drains: a greeting in flight finishes, then the worker app exits 0');
    const { runId: slow } = await call('POST', '/jobs', {
      jobType: 'example.greet',
      queue: 'greetings',
      payload: { name: 'drain', takeMs: 1500 },
    });
    await until(`run ${slow} to start`, async () => (await call('GET', `/runs/${slow}`)).status === 'running');
    const code = await worker.stop('SIGTERM');
    apps.splice(apps.indexOf(worker), 1);
    if (code !== 0) fail(`the worker app exited with ${code} on SIGTERM:\n${worker.output().slice(-2000)}`);
    const drained = await call('GET', `/runs/${slow}`);
    same(
      { status: drained.status, result: drained.result },
      { status: 'succeeded', result: { text: 'Hello, drain!', by: 'nest-worker' } },
      'the run in flight at SIGTERM',
    );
  } finally {
    await Promise.all(apps.map((a) => a.stop('SIGTERM')));
  }
}

function same(actual, expected, what) {
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    fail(`${what}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
}
