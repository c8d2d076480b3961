/**
 * Per-key concurrency throughput: N no-op runs through Drover into a queue with
 * `concurrencyKey: {source: payload.tenant, limit}` spread over K keys, against the same runs into the
 * same queue without keys, and raw BullMQ (one Worker, same concurrency), in the same process on the
 * same Redis. Each side enqueues into a running queue (keyed runs are released as they are
 * enqueued) and is timed until the last completion: end-to-end rate = N / that time. Rounds
 * alternate the three sides; medians are reported, with the load average at the start and end.
 *
 * Env: REDIS_URL (scripts/bench.mjs starts a private redis-server), BENCH_JOBS (10000),
 * BENCH_KEYS (1000), BENCH_KEY_LIMIT (2), BENCH_ROUNDS (5).
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
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

const N = Number(process.env.BENCH_JOBS ?? 10_000);
const KEYS = Number(process.env.BENCH_KEYS ?? 1_000);
const LIMIT = Number(process.env.BENCH_KEY_LIMIT ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONCURRENCY = 50;
const CHUNK = 1_000;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function rawBullmq(): Promise<number> {
  const name = `raw-${randomBytes(4).toString('hex')}`;
  const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue(name, { connection, prefix: 'bench' });
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
    await queue.addBulk(
      Array.from({ length: Math.min(CHUNK, N - i) }, (_, j) => ({
        name: 'noop',
        data: { tenant: `t${(i + j) % KEYS}` },
      })),
    );
  }
  await finished;
  const seconds = (performance.now() - t0) / 1000;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
  return N / seconds;
}

@Module({ providers: [NoopHandler] })
class BenchHandlersModule {}

async function drover(keyed: boolean): Promise<number> {
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
  await registry.put([
    {
      name: queueName,
      concurrency: CONCURRENCY,
      ...(keyed && { concurrencyKey: { source: 'payload.tenant', limit: LIMIT } }),
    },
  ]);
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
      payload: { tenant: `t${(i + j) % KEYS}` },
    }));
    await runs.enqueueMany(batch);
  }
  while ((await succeeded()) < N) await new Promise((r) => setTimeout(r, 5));
  const seconds = (performance.now() - t0) / 1000;
  const sample = await runs.get(`a-${N - 1}`, queueName);
  if (sample?.status !== 'succeeded') throw new Error(`last run not recorded as succeeded: ${JSON.stringify(sample)}`);
  if (keyed && sample.concurrencyKey !== `t${(N - 1) % KEYS}`) throw new Error('the keyed run carries no key');
  await app.close();
  const cleanup = new Redis(REDIS_URL);
  const keys = await cleanup.keys(`${prefix}:*`);
  for (let i = 0; i < keys.length; i += 500) await cleanup.del(...keys.slice(i, i + 500));
  cleanup.disconnect();
  return N / seconds;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  console.log(
    `keyed throughput: ${N} no-op runs over ${KEYS} keys (limit ${LIMIT} per key), concurrency ${CONCURRENCY}, ` +
      `${ROUNDS} rounds, ${REDIS_URL}; load average ${load()}`,
  );
  await rawBullmq(); // warm-up: JIT, Lua script cache
  const raw: number[] = [];
  const plain: number[] = [];
  const keyed: number[] = [];
  const fmt = (n: number) => n.toFixed(0).padStart(6);
  for (let round = 1; round <= ROUNDS; round++) {
    raw.push(await rawBullmq());
    plain.push(await drover(false));
    keyed.push(await drover(true));
    console.log(
      `  round ${round}: raw ${fmt(raw.at(-1)!)} / Drover without keys ${fmt(plain.at(-1)!)} / with keys ` +
        `${fmt(keyed.at(-1)!)} runs/s (end-to-end)`,
    );
  }
  const [r, p, k] = [median(raw), median(plain), median(keyed)];
  console.log(`medians of ${ROUNDS} rounds (end-to-end, enqueue + processing):`);
  console.log(
    `  raw BullMQ ${fmt(r)} runs/s   Drover without keys ${fmt(p)} runs/s   with ${KEYS} keys ${fmt(k)} runs/s`,
  );
  console.log(`  ratio with keys / without keys ${(k / p).toFixed(2)}   with keys / raw BullMQ ${(k / r).toFixed(2)}`);
  const perRound = keyed.map((x, i) => x / plain[i]!);
  console.log(
    `  per-round ratios with keys / without keys ${perRound.map((x) => x.toFixed(2)).join(' ')} (median ${median(perRound).toFixed(2)})`,
  );
  console.log(`load average at the end ${load()} (a shared machine: compare ratios, not rates)`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
