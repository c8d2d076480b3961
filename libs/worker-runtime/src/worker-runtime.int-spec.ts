import 'reflect-metadata';
import { type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Worker } from 'bullmq';
import pino, { type Logger } from 'pino';
import { z } from 'zod';
import { loadAppConfig } from '@drover/config';
import type { QueueInput } from '@drover/core';
import { createLogger } from '@drover/logger';
import { DroverMetrics } from '@drover/metrics';
import { PlatformModule } from '@drover/platform';
import { DroverKeys, RedisConnections } from '@drover/redis';
import { BullQueues, QueueRegistry, RunStore, type NewRun } from '@drover/store';
import { testRedisClient, testRedisUrl, testStores, uniquePrefix, waitFor } from '@drover/testing';
import { JobCanceledError } from './errors/job-canceled.error';
import { PermanentError } from './errors/permanent.error';
import type { JobContext } from './job-context';
import { JobHandler } from './job-handler.decorator';
import { WorkerRuntimeModule } from './worker-runtime.module';
import { WorkerRuntime } from './worker-runtime.service';

/** Per-run hooks the test handlers use: resolve when started, settle when released, note aborts. */
interface Gate {
  started: Promise<number>;
  markStarted(attempt: number): void;
  release(): void;
  released: Promise<void>;
  aborts: unknown[];
}
const gates = new Map<string, Gate>();
function gate(id: string): Gate {
  let g = gates.get(id);
  if (!g) {
    let markStarted!: (n: number) => void;
    let release!: () => void;
    const started = new Promise<number>((r) => (markStarted = r));
    const released = new Promise<void>((r) => (release = r));
    g = { started, markStarted, release, released, aborts: [] };
    gates.set(id, g);
  }
  return g;
}
const failing = { on: true };

@JobHandler('test.echo')
class EchoHandler {
  async handle(payload: unknown, ctx: JobContext) {
    await ctx.progress(50);
    return { echo: payload, attempt: ctx.run.attempt };
  }
}

@JobHandler('test.fail')
class FailHandler {
  handle(_: unknown, ctx: JobContext) {
    if (failing.on) throw new Error(`failed attempt ${ctx.run.attempt}`);
    return 'fixed';
  }
}

@JobHandler('test.permanent')
class PermanentHandler {
  handle() {
    throw new PermanentError('the report no longer exists');
  }
}

@JobHandler('test.typed', { payload: z.strictObject({ n: z.number() }) })
class TypedHandler {
  handle(p: { n: number }) {
    return p.n * 2;
  }
}

/** Runs until released or aborted. */
@JobHandler('test.block')
class BlockHandler {
  async handle(_: unknown, ctx: JobContext) {
    const g = gate(ctx.run.id);
    g.markStarted(ctx.run.attempt);
    await new Promise<void>((resolve, reject) => {
      void g.released.then(resolve);
      ctx.signal.addEventListener('abort', () => {
        g.aborts.push(ctx.signal.reason);
        reject(ctx.signal.reason as Error);
      });
    });
    return { attempt: ctx.run.attempt };
  }
}

@Module({ providers: [EchoHandler, FailHandler, PermanentHandler, TypedHandler, BlockHandler] })
class TestHandlers {}

interface Harness {
  prefix: string;
  runs: RunStore;
  registry: QueueRegistry;
  bull: BullQueues;
  connections: RedisConnections;
  keys: DroverKeys;
  close(): Promise<void>;
}

/** Queue policies and a RunStore, without a worker (a producer's view). */
async function producer(prefix: string, queues: QueueInput[]): Promise<Harness> {
  const stores = testStores('test', { prefix });
  await stores.registry.put(queues);
  return { ...stores, prefix };
}

interface RuntimeHandle {
  app: INestApplicationContext;
  metrics: DroverMetrics;
  runtime: WorkerRuntime;
  close(): Promise<void>;
}

async function startRuntime(prefix: string, env: Record<string, string> = {}, log?: Logger): Promise<RuntimeHandle> {
  const config = loadAppConfig(
    'worker',
    {},
    {
      REDIS_URL: testRedisUrl(),
      DROVER_PREFIX: prefix,
      DROVER_INSTANCE_ID: env.DROVER_INSTANCE_ID ?? 'int-worker',
      LOG_LEVEL: 'silent',
      ...env,
    },
  );
  const logger =
    log ?? createLogger({ app: 'worker', instanceId: config.env.instanceId, level: 'silent', format: 'json' });
  @Module({ imports: [PlatformModule.forRoot(config, logger), WorkerRuntimeModule.forRoot(), TestHandlers] })
  class RuntimeModule {}
  const app = await NestFactory.createApplicationContext(RuntimeModule, { logger: false });
  const runtime = app.get(WorkerRuntime);
  await runtime.consuming;
  return { app, runtime, metrics: app.get(DroverMetrics), close: () => app.close() };
}

async function metric(metrics: DroverMetrics, status: string, queue = 'q'): Promise<number> {
  const values = (await metrics.runsTotal.get()).values;
  return values.filter((v) => v.labels.status === status && v.labels.queue === queue).reduce((a, v) => a + v.value, 0);
}

function newRun(id: string, jobType: string, over: Partial<NewRun> = {}): NewRun {
  return { id, routine: null, jobType, queue: 'q', source: 'api', scheduledFor: null, payload: {}, ...over };
}

describe('WorkerRuntime against a real redis-server', () => {
  let p: Harness;
  let w: RuntimeHandle | undefined;

  afterEach(async () => {
    await w?.close();
    w = undefined;
    await p?.close();
  });

  it('runs a job and records it on the run: result, progress, worker, attempt, metrics', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q' }]);
    w = await startRuntime(p.prefix, { DROVER_INSTANCE_ID: 'worker-a' });
    const scheduledFor = Date.now() - 250;
    await p.runs.enqueue(
      newRun('r-daily-1', 'test.echo', { routine: 'daily', source: 'schedule', scheduledFor, payload: { x: 1 } }),
    );
    const { run } = await p.runs.waitForTerminal('r-daily-1', 10_000);
    expect(run).toMatchObject({
      status: 'succeeded',
      routine: 'daily',
      scheduledFor,
      attempt: 1,
      worker: 'worker-a',
      progress: 50,
      result: { echo: { x: 1 }, attempt: 1 },
    });
    expect(await metric(w.metrics, 'succeeded')).toBe(1);
    const lateness = (await w.metrics.fireLateness.get()).values.find((v) => v.metricName?.endsWith('_count'));
    expect(lateness?.value).toBe(1);
    expect(await p.runs.listByRoutine('daily')).toEqual([
      expect.objectContaining({ id: 'r-daily-1', status: 'succeeded' }),
    ]);
  });

  it('retries with the queue backoff, parks when attempts are exhausted, and replays as a new run', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 3, backoff: { type: 'fixed', delayMs: 100 } }]);
    w = await startRuntime(p.prefix);
    failing.on = true;
    await p.runs.enqueue(newRun('a-fail', 'test.fail'));
    const { run } = await p.runs.waitForTerminal('a-fail', 10_000);
    expect(run).toMatchObject({ status: 'parked', attempt: 3, maxAttempts: 3, reason: 'attempts-exhausted' });
    const errors = run!.errors!;
    expect(errors.map((e) => [e.attempt, e.kind, e.message])).toEqual([
      [1, 'error', 'failed attempt 1'],
      [2, 'error', 'failed attempt 2'],
      [3, 'error', 'failed attempt 3'],
    ]);
    // The fixed 100 ms backoff lies between one failure and the next start.
    expect(errors[1]!.startedAt! - errors[0]!.failedAt).toBeGreaterThanOrEqual(95);
    expect(errors[2]!.startedAt! - errors[1]!.failedAt).toBeGreaterThanOrEqual(95);
    expect(await metric(w.metrics, 'retried')).toBe(2);
    expect(await metric(w.metrics, 'parked')).toBe(1);

    expect(await p.runs.parkedCount('q')).toBe(1);
    expect((await p.runs.listParked('q')).map((r) => r.id)).toEqual(['a-fail']);
    expect(await p.runs.getParked('a-fail')).toMatchObject({ payload: {}, errors: expect.any(Array) });

    failing.on = false;
    const replay = await p.runs.replayParked('q', 'a-fail');
    expect(replay.replayOf).toBe('a-fail');
    expect(await p.runs.replayParked('q', 'a-fail')).toEqual(replay); // idempotent
    const { run: again } = await p.runs.waitForTerminal(replay.id, 10_000);
    expect(again).toMatchObject({
      status: 'succeeded',
      source: 'replay',
      replayOf: 'a-fail',
      attempt: 1,
      result: 'fixed',
    });
    expect(await p.runs.get('a-fail')).toMatchObject({ status: 'failed', replayedAs: replay.id });
    expect(await p.runs.parkedCount('q')).toBe(0);
  });

  it('parks at once on a PermanentError or an invalid payload, without retrying', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 5 }]);
    w = await startRuntime(p.prefix);
    await p.runs.enqueueMany([
      newRun('a-perm', 'test.permanent'),
      newRun('a-bad', 'test.typed', { payload: { n: 'x' } }),
    ]);
    expect((await p.runs.waitForTerminal('a-perm', 10_000)).run).toMatchObject({
      status: 'parked',
      attempt: 1,
      reason: 'permanent-error',
      error: { message: 'the report no longer exists', permanent: true },
    });
    const bad = (await p.runs.waitForTerminal('a-bad', 10_000)).run!;
    expect(bad).toMatchObject({ status: 'parked', attempt: 1, reason: 'permanent-error' });
    expect(bad.errors).toEqual([
      expect.objectContaining({ kind: 'invalid-payload', message: expect.stringMatching(/^invalid payload: n:/) }),
    ]);
    expect(await metric(w.metrics, 'retried')).toBe(0);
  });

  it('fails an attempt that outlives its timeout as a timeout; the handler sees its signal abort', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 1 }]);
    w = await startRuntime(p.prefix);
    await p.runs.enqueue(newRun('a-slow', 'test.block', { timeoutMs: 200 }));
    const { run } = await p.runs.waitForTerminal('a-slow', 10_000);
    expect(run).toMatchObject({
      status: 'parked',
      errors: [expect.objectContaining({ kind: 'timeout', message: 'timed out after 200 ms' })],
    });
    const e = run!.errors![0]!;
    expect(e.failedAt - e.startedAt!).toBeGreaterThanOrEqual(190);
    // The handler never returns: only the abort ends it. 25× the timeout is room for a loaded
    // machine, still far from a timer armed in the wrong unit.
    expect(e.failedAt - e.startedAt!).toBeLessThan(5_000);
    expect((gates.get('a-slow')!.aborts[0] as Error).name).toBe('JobTimeoutError');
  });

  it('cancels: a queued run never starts, a running one is aborted and ends canceled, an ended one is left alone', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 3 }]);
    w = await startRuntime(p.prefix);
    await p.runs.enqueue(newRun('a-later', 'test.block', { delayMs: 60_000 }));
    expect((await p.runs.get('a-later'))?.status).toBe('scheduled');
    expect(await p.runs.cancel('a-later', 'not needed')).toMatchObject({
      outcome: 'canceled',
      run: { status: 'canceled', reason: 'not needed' },
    });
    expect(await p.runs.get('a-later')).toMatchObject({ status: 'canceled', reason: 'not needed' });
    expect(await p.runs.enqueue(newRun('a-later', 'test.block'))).toEqual({ id: 'a-later', created: false });

    await p.runs.enqueue(newRun('a-running', 'test.block'));
    await gate('a-running').started;
    expect((await p.runs.cancel('a-running', 'replaced')).outcome).toBe('cancel-requested');
    const { run } = await p.runs.waitForTerminal('a-running', 10_000);
    expect(run).toMatchObject({ status: 'canceled', reason: 'replaced', attempt: 1 });
    expect(gate('a-running').aborts).toEqual([new JobCanceledError('replaced')]);
    expect(await metric(w.metrics, 'canceled')).toBe(1);
    expect(await metric(w.metrics, 'retried')).toBe(0);

    expect(await p.runs.cancel('a-running', 'again')).toMatchObject({
      outcome: 'already-final',
      run: { status: 'canceled' },
    });
    expect((await p.runs.cancel('nope', 'x')).outcome).toBe('not-found');
  });

  it('counts an attempt lost to an expired lease and reclaims the run as attempt 2', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 3, leaseMs: 500 }]);
    await p.runs.enqueue(newRun('a-lost', 'test.echo'));
    // A "worker" takes the run and dies: it never renews the 500 ms lock.
    const dead = new Worker(p.keys.bullQueueName('q'), null, {
      connection: p.connections.open('blocking', 'dead'),
      prefix: p.keys.bullPrefix,
      lockDuration: 500,
    });
    const taken = await dead.getNextJob('dead-token');
    expect(taken?.id).toBe('a-lost');
    await dead.close(true);
    w = await startRuntime(p.prefix);
    const { run } = await p.runs.waitForTerminal('a-lost', 15_000);
    expect(run).toMatchObject({ status: 'succeeded', attempt: 2, result: { attempt: 2 } });
    expect((await w.metrics.leaseReclaims.get()).values).toEqual([
      expect.objectContaining({ value: 1, labels: { queue: 'q' } }),
    ]);
  });

  it('parks a run whose last attempt was lost to its lease, without running it again', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 1, leaseMs: 500 }]);
    await p.runs.enqueue(newRun('a-lost-last', 'test.block'));
    const dead = new Worker(p.keys.bullQueueName('q'), null, {
      connection: p.connections.open('blocking', 'dead'),
      prefix: p.keys.bullPrefix,
      lockDuration: 500,
    });
    await dead.getNextJob('dead-token');
    await dead.close(true);
    w = await startRuntime(p.prefix);
    const { run } = await p.runs.waitForTerminal('a-lost-last', 15_000);
    expect(run).toMatchObject({ status: 'parked', attempt: 1, reason: 'lease-expired' });
    expect(run!.errors).toEqual([expect.objectContaining({ attempt: 1, kind: 'lease-expired' })]);
    expect(gates.has('a-lost-last')).toBe(false);
    expect(await metric(w.metrics, 'parked')).toBe(1);
  });

  it('honours a cancel written on a run whose worker died: the reclaimed run ends canceled without running', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 3, leaseMs: 500 }]);
    await p.runs.enqueue(newRun('a-cancel-dead', 'test.block'));
    const dead = new Worker(p.keys.bullQueueName('q'), null, {
      connection: p.connections.open('blocking', 'dead'),
      prefix: p.keys.bullPrefix,
      lockDuration: 500,
    });
    await dead.getNextJob('dead-token');
    expect((await p.runs.cancel('a-cancel-dead', 'operator')).outcome).toBe('cancel-requested');
    await dead.close(true);
    w = await startRuntime(p.prefix);
    const { run } = await p.runs.waitForTerminal('a-cancel-dead', 15_000);
    expect(run).toMatchObject({ status: 'canceled', reason: 'operator' });
    expect(gates.has('a-cancel-dead')).toBe(false);
  });

  it('fails (and finally parks) a run whose job type has no handler on this worker', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 } }]);
    w = await startRuntime(p.prefix, { DROVER_INSTANCE_ID: 'worker-x' });
    await p.runs.enqueue(newRun('a-unknown', 'reports.generate'));
    const { run } = await p.runs.waitForTerminal('a-unknown', 10_000);
    expect(run).toMatchObject({ status: 'parked', attempt: 2 });
    expect(run!.error!.message).toMatch(
      /^no handler for job type "reports.generate" on worker worker-x \(handlers: test\./,
    );
  });

  it('stops an attempt whose lease it lost; the re-run is attempt 2 and outcomes are counted once', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 3, leaseMs: 600 }]);
    w = await startRuntime(p.prefix);
    await p.runs.enqueue(newRun('a-stolen', 'test.block'));
    const g = gate('a-stolen');
    expect(await g.started).toBe(1);
    // Another party took the lease (as after a long pause of this worker): renewal fails.
    const redis = testRedisClient();
    await redis.del(`${p.bull.jobKey('q', 'a-stolen')}:lock`);
    redis.disconnect();
    await waitFor('the lost attempt to be aborted', () => g.aborts.length > 0, { timeoutMs: 10_000 });
    expect((g.aborts[0] as Error).name).toBe('LeaseLostError');
    await waitFor('the run to start again', async () => (await p.runs.get('a-stolen'))?.attempt === 2, {
      timeoutMs: 15_000,
    });
    g.release();
    const { run } = await p.runs.waitForTerminal('a-stolen', 10_000);
    expect(run).toMatchObject({ status: 'succeeded', attempt: 2 });
    expect(await metric(w.metrics, 'succeeded')).toBe(1);
    expect(await metric(w.metrics, 'retried')).toBe(0);
    expect(await metric(w.metrics, 'parked')).toBe(0);
  });

  it('drains on shutdown: a run still going after the grace period goes back to its queue without using an attempt', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 1 }]);
    w = await startRuntime(p.prefix, { DROVER_SHUTDOWN_GRACE_MS: '200', DROVER_INSTANCE_ID: 'worker-a' });
    await p.runs.enqueueMany([newRun('a-quick', 'test.block'), newRun('a-long', 'test.block')]);
    await Promise.all([gate('a-quick').started, gate('a-long').started]);
    const closing = w.close();
    gate('a-quick').release(); // finishes within the grace period
    await closing;
    w = undefined;
    expect(await p.runs.get('a-quick')).toMatchObject({ status: 'succeeded' });
    expect(await p.runs.get('a-long')).toMatchObject({ status: 'queued', attempt: 0 });
    expect((gate('a-long').aborts[0] as Error).name).toBe('WorkerShutdownError');

    gates.delete('a-long');
    w = await startRuntime(p.prefix, { DROVER_INSTANCE_ID: 'worker-b' });
    expect(await gate('a-long').started).toBe(1); // maxAttempts 1 and still allowed to run
    gate('a-long').release();
    expect((await p.runs.waitForTerminal('a-long', 10_000)).run).toMatchObject({
      status: 'succeeded',
      worker: 'worker-b',
    });
  });

  it('two workers given the same DROVER_INSTANCE_ID both log it as an error, naming the id and the other process', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q' }]);
    const lines: { level: number; msg: string }[][] = [[], []];
    const capture = (i: number) =>
      pino({ level: 'info' }, { write: (line: string) => void lines[i]!.push(JSON.parse(line)) });
    const errors = (i: number) => lines[i]!.filter((l) => l.level === 50).map((l) => l.msg);
    const env = { DROVER_INSTANCE_ID: 'worker-twin' };
    const twins = [await startRuntime(p.prefix, env, capture(0)), await startRuntime(p.prefix, env, capture(1))];
    try {
      // Each worker's heartbeat (every 5 s) finds the other's entry under the id after its first write.
      await waitFor('both workers to log the duplicate', () => errors(0).length > 0 && errors(1).length > 0, {
        timeoutMs: 20_000,
        intervalMs: 100,
      });
      for (const i of [0, 1]) {
        expect(errors(i)).toEqual([
          expect.stringMatching(
            new RegExp(
              `^duplicate DROVER_INSTANCE_ID "worker-twin": another running worker process uses it \\(pid ${process.pid} on `,
            ),
          ),
        ]);
      }
    } finally {
      await Promise.all(twins.map((t) => t.close()));
    }
  }, 30_000);

  it('follows the queue registry, narrowed by DROVER_QUEUES, and writes the ceilings where BullMQ enforces them', async () => {
    p = await producer(uniquePrefix('rt'), []);
    w = await startRuntime(p.prefix, { DROVER_QUEUES: 'mine' });
    expect(w.runtime.consumedQueues().map((q) => q.name)).toEqual(['mine']);
    await p.registry.put([
      { name: 'mine', concurrency: 4, globalConcurrency: 2, rateLimit: { max: 10, durationMs: 1000 } },
      { name: 'other' },
    ]);
    await waitFor('the new policy', () => w!.runtime.consumedQueues()[0]?.concurrency === 4);
    expect(w.runtime.consumedQueues().map((q) => q.name)).toEqual(['mine']);
    const redis = testRedisClient();
    expect(await redis.hgetall(`${p.prefix}:mine:meta`)).toMatchObject({
      concurrency: '2',
      max: '10',
      duration: '1000',
    });
    await p.registry.put([{ name: 'mine' }]);
    expect(await redis.hmget(`${p.prefix}:mine:meta`, 'concurrency', 'max')).toEqual([null, null]);
    redis.disconnect();
  });
});
