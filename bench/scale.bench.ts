/**
 * Queued runs at scale, as deployed: a producer process enqueues N runs (1 000 000 by default) with
 * no worker running, then a worker process drains them. Raw BullMQ (`Queue.add`, a `Worker`) and
 * Drover (a NestJS app calling `DroverClient.enqueue`; the `worker` and `scheduler` apps) run the
 * same steps on the same Redis, one after the other.
 *
 * Every second the bench reads the queue's wait-list length and Redis `used_memory`, and prints the
 * curve per tenth of N: the enqueue rate and Redis bytes per queued job while the backlog grows,
 * then the dispatch rate while it drains. Flat rows mean no step costs more as the backlog grows.
 *
 * Env: REDIS_URL, BENCH_SCALE_RUNS (1000000), BENCH_IN_FLIGHT (200).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { startApp, uniquePrefix, type AppProcess } from '@drover/testing';
import { script, spawnChild, type Child } from './deployed/child';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.env.BENCH_SCALE_RUNS ?? 1_000_000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 200);
const CONCURRENCY = 50;
const BUCKETS = 10;
const QUEUE = 'scale';
type Side = 'raw' | 'drover';

interface Sample {
  at: number;
  waiting: number;
  memory: number;
}

const probe = new Redis(REDIS_URL);

async function sample(prefix: string): Promise<Sample> {
  const [waiting, info] = await Promise.all([probe.llen(`${prefix}:${QUEUE}:wait`), probe.info('memory')]);
  return { at: performance.now(), waiting, memory: Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0) };
}

/** Samples every second until `done` resolves; then one last sample. */
async function watch(prefix: string, done: Promise<unknown>): Promise<Sample[]> {
  const samples = [await sample(prefix)];
  let over = false;
  const end = () => (over = true);
  done.then(end, end);
  while (!over) {
    await Promise.race([done, new Promise((r) => setTimeout(r, 1000))]);
    samples.push(await sample(prefix));
  }
  return samples;
}

/** The first sample at or past `n` jobs (counted by `count`), interpolated between its neighbours. */
function crossing(samples: Sample[], count: (s: Sample) => number, n: number): Sample | undefined {
  const i = samples.findIndex((s) => count(s) >= n);
  if (i <= 0) return i === 0 ? samples[0] : undefined;
  const [a, b] = [samples[i - 1]!, samples[i]!];
  const f = (n - count(a)) / Math.max(1, count(b) - count(a));
  return { at: a.at + f * (b.at - a.at), waiting: n, memory: a.memory + f * (b.memory - a.memory) };
}

interface Curve {
  /** Per tenth of N while the backlog grows: jobs/s and Redis bytes per job added in that tenth. */
  enqueue: { rate: number; bytesPerJob: number }[];
  /** Per tenth of N while it drains: jobs/s. */
  dispatch: number[];
}

function curveOf(grow: Sample[], drain: Sample[]): Curve {
  const step = N / BUCKETS;
  const enqueue: Curve['enqueue'] = [];
  const base = grow[0]!;
  for (let k = 0; k < BUCKETS; k++) {
    const a = k === 0 ? base : crossing(grow, (s) => s.waiting - base.waiting, k * step);
    const b = crossing(grow, (s) => s.waiting - base.waiting, (k + 1) * step);
    enqueue.push(
      a && b
        ? { rate: step / ((b.at - a.at) / 1000), bytesPerJob: (b.memory - a.memory) / step }
        : { rate: NaN, bytesPerJob: NaN },
    );
  }
  const dispatch: number[] = [];
  const start = drain[0]!.waiting;
  for (let k = 0; k < BUCKETS; k++) {
    // From the first job taken, so the worker's boot is not counted.
    const a = crossing(drain, (s) => start - s.waiting, Math.max(1, k * step));
    const b = crossing(drain, (s) => start - s.waiting, (k + 1) * step);
    dispatch.push(a && b ? step / ((b.at - a.at) / 1000) : NaN);
  }
  return { enqueue, dispatch };
}

async function side(which: Side): Promise<Curve> {
  const prefix = uniquePrefix(`scale-${which}`);
  let scheduler: AppProcess | undefined;
  let config = '';
  if (which === 'drover') {
    config = join(mkdtempSync(join(tmpdir(), 'drover-bench-')), 'drover.yaml');
    writeFileSync(config, stringify({ queues: [{ name: QUEUE, concurrency: CONCURRENCY }] }));
    scheduler = await startApp('scheduler', {
      env: { REDIS_URL, DROVER_PREFIX: prefix, DROVER_CONFIG: config, DROVER_INSTANCE_ID: 'scale-scheduler' },
    });
  }
  const producer = spawnChild(script(`${which}-producer`), REDIS_URL, [
    QUEUE,
    prefix,
    'single',
    String(N),
    String(IN_FLIGHT),
  ]);
  await producer.ready;
  producer.proc.stdin!.end('go\n');
  const grow = await watch(prefix, producer.nextLine());
  await producer.gone;

  let worker: AppProcess | Child;
  if (scheduler) {
    worker = await startApp('worker', {
      env: { REDIS_URL, DROVER_PREFIX: prefix, DROVER_CONFIG: config, DROVER_INSTANCE_ID: 'scale-worker' },
      waitReady: false,
    });
  } else {
    worker = spawnChild(script('raw-worker'), REDIS_URL, [QUEUE, prefix, String(CONCURRENCY)]);
  }
  const drained = (async () => {
    while ((await probe.llen(`${prefix}:${QUEUE}:wait`)) > 0) await new Promise((r) => setTimeout(r, 200));
  })();
  const drain = await watch(prefix, drained);
  if ('stop' in worker) await worker.stop('SIGTERM');
  else {
    worker.proc.kill('SIGTERM');
    await worker.gone;
  }
  await scheduler?.stop('SIGTERM');
  // Unlinked in slices: a million keys in one command would block Redis for seconds.
  let cursor = '0';
  do {
    const [next, keys] = await probe.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 5000);
    if (keys.length) await probe.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
  return curveOf(grow, drain);
}

const fmt = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US').replace(/,/g, ' ') : '–');

async function main(): Promise<void> {
  const os = await import('node:os');
  const load = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(`load average at start: ${load()}`);
  const raw = await side('raw');
  const drover = await side('drover');
  const step = N / BUCKETS;
  console.log(`\n${N} queued runs, ${IN_FLIGHT} calls in flight, then drained at concurrency ${CONCURRENCY}`);
  console.log(
    `${'backlog'.padEnd(20)} ${'enqueue/s raw'.padStart(14)} ${'drover'.padStart(8)} ${'B/job raw'.padStart(10)} ${'drover'.padStart(8)}` +
      `   ${'drained'.padEnd(20)} ${'dispatch/s raw'.padStart(14)} ${'drover'.padStart(8)}`,
  );
  for (let k = 0; k < BUCKETS; k++) {
    const grew = `${fmt(k * step)}–${fmt((k + 1) * step)}`;
    const r = raw.enqueue[k]!;
    const d = drover.enqueue[k]!;
    console.log(
      `${grew.padEnd(20)} ${fmt(r.rate).padStart(14)} ${fmt(d.rate).padStart(8)} ${fmt(r.bytesPerJob).padStart(10)} ${fmt(d.bytesPerJob).padStart(8)}` +
        `   ${grew.padEnd(20)} ${fmt(raw.dispatch[k]!).padStart(14)} ${fmt(drover.dispatch[k]!).padStart(8)}`,
    );
  }
  console.log(`load average at end: ${load()}`);
  probe.disconnect();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
