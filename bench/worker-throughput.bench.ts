/**
 * Worker throughput: N no-op jobs through raw BullMQ (one Worker, concurrency 50) and through
 * Drover (RunStore.enqueueMany → WorkerRuntime → @JobHandler('noop') → run recorded on the job,
 * Prometheus metrics on), against the same Redis in the same process. Each side enqueues all
 * jobs into its paused queue (timed: enqueue rate), then resumes it with the consumer running
 * (timed: processing rate, until the last completion is recorded in Redis). End-to-end rate =
 * jobs / (enqueue + processing time). Rounds alternate raw/Drover; medians are reported.
 *
 * Env: REDIS_URL (scripts/bench.mjs starts a private redis-server), BENCH_JOBS (20000), BENCH_ROUNDS (5).
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { loadAppConfig } from '@drover/config';
import { createLogger } from '@drover/logger';
import { DroverMetrics } from '@drover/metrics';
import { PlatformModule, ReadinessRegistry } from '@drover/platform';
import { QueueRegistry, RunStore, type NewRun } from '@drover/store';
import { WorkerRuntimeModule } from '@drover/worker-runtime';
import { NoopHandler } from '@drover/builtins';

const N = Number(process.env.BENCH_JOBS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONCURRENCY = 50;
const CHUNK = 1_000;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Result {
  enqueueSeconds: number;
  processSeconds: number;
  /** CPU per job while processing, µs: this process (BullMQ + Drover) and redis-server. */
  nodeCpuUs: number;
  redisCpuUs: number;
}

const probe = new Redis(REDIS_URL);
async function redisCpuSeconds(): Promise<number> {
  const info = await probe.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return field('used_cpu_user') + field('used_cpu_sys');
}

/** Runs `fn` and measures wall time and the CPU it cost here and in redis-server. */
async function measured(fn: () => Promise<void>): Promise<{ seconds: number; nodeCpuUs: number; redisCpuUs: number }> {
  const [cpu0, redis0, t0] = [process.cpuUsage(), await redisCpuSeconds(), performance.now()];
  await fn();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const redis1 = await redisCpuSeconds();
  return { seconds, nodeCpuUs: (cpu.user + cpu.system) / N, redisCpuUs: ((redis1 - redis0) * 1e6) / N };
}

const processRate = (r: Result) => N / r.processSeconds;
const enqueueRate = (r: Result) => N / r.enqueueSeconds;
const endToEndRate = (r: Result) => N / (r.enqueueSeconds + r.processSeconds);

async function rawBullmq(): Promise<Result> {
  const name = `raw-${randomBytes(4).toString('hex')}`;
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue(name, { connection, prefix: 'bench' });
  await queue.pause();
  let done = 0;
  let finish!: () => void;
  const finished = new Promise<void>((r) => (finish = r));
  const worker = new Worker(name, async () => undefined, {
    connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }),
    prefix: 'bench',
    concurrency: CONCURRENCY,
  });
  worker.on('completed', () => ++done === N && finish());
  await worker.waitUntilReady();
  const t0 = performance.now();
  for (let i = 0; i < N; i += CHUNK) {
    await queue.addBulk(Array.from({ length: Math.min(CHUNK, N - i) }, () => ({ name: 'noop', data: {} })));
  }
  const enqueued = performance.now();
  const proc = await measured(async () => {
    await queue.resume();
    await finished;
  });
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
  return { enqueueSeconds: (enqueued - t0) / 1000, processSeconds: proc.seconds, ...proc };
}

@Module({ providers: [NoopHandler] })
class BenchHandlersModule {}

async function drover(): Promise<Result> {
  const prefix = `bench-${randomBytes(4).toString('hex')}`;
  const queueName = 'bench';
  const config = loadAppConfig(
    'bench',
    {},
    { REDIS_URL, DROVER_PREFIX: prefix, LOG_LEVEL: 'warn', DROVER_SHUTDOWN_GRACE_MS: '5000' },
  );
  const logger = createLogger({ app: 'bench', instanceId: 'bench', level: 'warn', format: 'json' });
  @Module({ imports: [PlatformModule.forRoot(config, logger), WorkerRuntimeModule.forRoot(), BenchHandlersModule] })
  class BenchModule {}
  const app = await NestFactory.createApplicationContext(BenchModule, { logger: false });
  const registry = app.get(QueueRegistry);
  const runs = app.get(RunStore);
  const metrics = app.get(DroverMetrics);
  // The worker follows the registry: defining the queue starts its consumer.
  await registry.put([{ name: queueName, concurrency: CONCURRENCY }]);
  const readiness = app.get(ReadinessRegistry);
  const consuming = async () => {
    try {
      for (const [, check] of readiness.entries()) await check();
      return readiness.entries().length > 0;
    } catch {
      return false;
    }
  };
  for (let i = 0; !(await consuming()); i++) {
    if (i > 200) throw new Error('the Drover worker did not start consuming');
    await new Promise((r) => setTimeout(r, 10));
  }
  const bullQueue = runs.bull.get(queueName);
  await bullQueue.pause();
  const succeeded = async () =>
    (await metrics.runsTotal.get()).values.find((v) => v.labels.status === 'succeeded')?.value ?? 0;
  const t0 = performance.now();
  for (let i = 0; i < N; i += CHUNK) {
    const batch: NewRun[] = Array.from({ length: Math.min(CHUNK, N - i) }, (_, j) => ({
      id: `a-${i + j}`,
      routine: null,
      jobType: 'noop',
      queue: queueName,
      source: 'api',
      scheduledFor: null,
      payload: {},
    }));
    await runs.enqueueMany(batch);
  }
  const enqueued = performance.now();
  const proc = await measured(async () => {
    await bullQueue.resume();
    // Completion is counted after BullMQ recorded it (the metric comes from the `completed` event).
    while ((await succeeded()) < N) await new Promise((r) => setTimeout(r, 5));
  });
  const sample = await runs.get(`a-${N - 1}`, queueName);
  if (sample?.status !== 'succeeded') throw new Error(`last run not recorded as succeeded: ${JSON.stringify(sample)}`);
  await app.close();
  const cleanup = new Redis(REDIS_URL);
  const keys = await cleanup.keys(`${prefix}:*`);
  for (let i = 0; i < keys.length; i += 500) await cleanup.del(...keys.slice(i, i + 500));
  cleanup.disconnect();
  return { enqueueSeconds: (enqueued - t0) / 1000, processSeconds: proc.seconds, ...proc };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  console.log(`worker throughput: ${N} no-op jobs, concurrency ${CONCURRENCY}, ${ROUNDS} rounds, ${REDIS_URL}`);
  await rawBullmq(); // warm-up: JIT, Lua script cache
  const raw: Result[] = [];
  const drv: Result[] = [];
  const fmt = (n: number) => n.toFixed(0).padStart(6);
  for (let round = 1; round <= ROUNDS; round++) {
    raw.push(await rawBullmq());
    drv.push(await drover());
    const [r, d] = [raw.at(-1)!, drv.at(-1)!];
    console.log(
      `  round ${round}: processing raw ${fmt(processRate(r))} / Drover ${fmt(processRate(d))} jobs/s;` +
        ` end-to-end raw ${fmt(endToEndRate(r))} / Drover ${fmt(endToEndRate(d))} jobs/s`,
    );
  }
  const row = (label: string, f: (r: Result) => number) => {
    const [r, d] = [median(raw.map(f)), median(drv.map(f))];
    console.log(
      `${label.padEnd(26)} raw BullMQ ${fmt(r)} jobs/s   Drover ${fmt(d)} jobs/s   ratio ${(d / r).toFixed(2)}`,
    );
  };
  console.log(`medians of ${ROUNDS} rounds:`);
  row('processing', processRate);
  row('enqueue', enqueueRate);
  row('end-to-end (enq + proc)', endToEndRate);
  const cpu = (label: string, f: (r: Result) => number) =>
    console.log(
      `${label.padEnd(26)} raw BullMQ ${fmt(median(raw.map(f)))} µs/job   Drover ${fmt(median(drv.map(f)))} µs/job`,
    );
  cpu('processing CPU, node', (r) => r.nodeCpuUs);
  cpu('processing CPU, redis', (r) => r.redisCpuUs);
  console.log('target: processing ratio >= 0.80 (aim >= 0.90)');
}

main().then(
  () => {
    probe.disconnect();
    process.exit(0);
  },
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
