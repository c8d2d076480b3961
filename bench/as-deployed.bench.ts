/**
 * Drover as users deploy it against raw BullMQ deployed the same way, same Redis, same run:
 *
 * - producer: a separate process enqueuing N no-op jobs — raw `Queue.add` / Drover's NestJS
 *   `DroverClient.enqueue`, 200 calls in flight (`single`); raw `addBulk` / `enqueueMany` in chunks
 *   of 1000 (`bulk`); one job id / idempotency key per job (`idempotent`). No worker runs. The raw
 *   side also runs `single` with the job Drover stores (`shaped`: a run id and the producer's
 *   code), which splits Drover's gap into what its job costs BullMQ and what its own code costs.
 *   `steady` and `steady-idempotent` time the same calls in a process that made BENCH_WARM (5000)
 *   of them first, as a long-running service would have: a fresh process's first calls run partly
 *   interpreted.
 * - processing: a worker process started on the `single` queue's N jobs — raw `Worker` at
 *   concurrency 50 / the Drover `worker` app (`dist/apps/worker`) with a concurrency-50 queue and its
 *   built-in `noop` handler — timed from its first completion to its N-th.
 * - end to end: with that worker running, a fresh producer process enqueues N more (`single`),
 *   timed from the go signal to the last completion.
 *
 * The Drover side also runs the `scheduler` app (it publishes the queue policy). Completions are
 * counted by a BullMQ QueueEvents reader in this process, the same for both sides. Rounds alternate
 * raw/Drover after a warm-up round; medians are printed with CPU per job in each process and in
 * redis-server. Env: REDIS_URL, BENCH_JOBS (20000), BENCH_ROUNDS (5), BENCH_IN_FLIGHT (200), BENCH_WARM (5000).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { startApp, uniquePrefix, type AppProcess } from '@drover/testing';
import { script, spawnChild, type Child } from './deployed/child';
import type { ProducerMode, ProducerReport } from './deployed/protocol';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.env.BENCH_JOBS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 200);
const CONCURRENCY = 50;
const MODES: ProducerMode[] = ['single', 'bulk', 'idempotent', 'steady', 'steady-idempotent'];
/** The raw side also runs `single` with the job Drover stores (see raw-producer), to split the gap. */
const RAW_MODES: ProducerMode[] = [...MODES, 'shaped'];
type Side = 'raw' | 'drover';

interface Round {
  /** `bytesPerJob`: Redis used_memory growth per job enqueued (no worker runs: every job is queued). */
  /** `shaped`: raw side only. */
  producer: Partial<Record<ProducerMode, { rate: number; cpuUs: number; redisCpuUs: number; bytesPerJob: number }>>;
  processing: { rate: number; workerCpuUs: number; redisCpuUs: number };
  endToEnd: { rate: number; producerRate: number };
}

const probe = new Redis(REDIS_URL);
async function redisUsedMemory(): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await probe.info('memory'))?.[1] ?? 0);
}

async function redisCpuSeconds(): Promise<number> {
  const info = await probe.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return field('used_cpu_user') + field('used_cpu_sys');
}

/** CPU seconds a process has used so far (utime + stime from /proc). */
function processCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Boots a producer process, then times its run: resolves with the go instant and its report. */
async function runProducer(
  side: Side,
  queue: string,
  prefix: string,
  mode: ProducerMode,
): Promise<{ goAt: number; report: ProducerReport; redisCpuUs: number; bytesPerJob: number }> {
  const child = spawnChild(script(`${side}-producer`), REDIS_URL, [queue, prefix, mode, String(N), String(IN_FLIGHT)]);
  await child.ready;
  const memory0 = await redisUsedMemory();
  const redis0 = await redisCpuSeconds();
  const goAt = Date.now();
  child.proc.stdin!.end('go\n');
  const report = JSON.parse(await child.nextLine()) as ProducerReport;
  const redisCpuUs = (((await redisCpuSeconds()) - redis0) * 1e6) / N;
  const bytesPerJob = ((await redisUsedMemory()) - memory0) / N;
  await child.gone;
  return { goAt, report, redisCpuUs, bytesPerJob };
}

/** Counts completions of one BullMQ queue, remembering when the first and the latest arrived. */
async function completions(queue: string, prefix: string) {
  const events = new QueueEvents(queue, { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix });
  await events.waitUntilReady();
  const state = { count: 0, firstAt: 0, lastAt: 0 };
  const targets: { n: number; resolve: () => void }[] = [];
  events.on('completed', () => {
    const now = Date.now();
    if (state.count++ === 0) state.firstAt = now;
    state.lastAt = now;
    for (const t of targets.filter((x) => state.count >= x.n)) {
      targets.splice(targets.indexOf(t), 1);
      t.resolve();
    }
  });
  return {
    state,
    reach: (n: number) => new Promise<void>((resolve) => (state.count >= n ? resolve() : targets.push({ n, resolve }))),
    close: () => events.close(),
  };
}

/** The Drover cluster of one round: scheduler and worker apps on a policy of the bench's queues. */
async function droverApps(prefix: string, queues: string[]) {
  const file = join(mkdtempSync(join(tmpdir(), 'drover-bench-')), 'drover.yaml');
  writeFileSync(file, stringify({ queues: queues.map((name) => ({ name, concurrency: CONCURRENCY })) }));
  const env = { REDIS_URL, DROVER_PREFIX: prefix, DROVER_CONFIG: file, LOG_LEVEL: 'warn' };
  const scheduler = await startApp('scheduler', { env: { ...env, DROVER_INSTANCE_ID: 'bench-scheduler' } });
  return {
    scheduler,
    // Not waiting for /readyz: the worker's pid is needed before its first completion arrives.
    startWorker: () => startApp('worker', { env: { ...env, DROVER_INSTANCE_ID: 'bench-worker' }, waitReady: false }),
  };
}

async function round(side: Side): Promise<Round> {
  const prefix = uniquePrefix(`bench-${side}`);
  const queueOf = (mode: ProducerMode) => `q-${mode}`;
  const apps = side === 'drover' ? await droverApps(prefix, MODES.map(queueOf)) : undefined;
  const producer: Round['producer'] = {};
  for (const mode of side === 'raw' ? RAW_MODES : MODES) {
    const r = await runProducer(side, queueOf(mode), prefix, mode);
    producer[mode] = {
      rate: N / r.report.seconds,
      cpuUs: r.report.cpuUs,
      redisCpuUs: r.redisCpuUs,
      bytesPerJob: r.bytesPerJob,
    };
  }
  // Only the `single` queue's jobs stay for the worker.
  for (const mode of RAW_MODES.filter((m) => m !== 'single')) {
    const q = new Queue(queueOf(mode), { connection: probe, prefix });
    await q.obliterate({ force: true });
    await q.close();
  }
  const done = await completions(queueOf('single'), prefix);
  let worker: AppProcess | Child;
  let workerPid: number;
  let redis0 = 0;
  let cpu0 = 0;
  const firstSeen = done.reach(1).then(async () => {
    [redis0, cpu0] = [await redisCpuSeconds(), processCpuSeconds(workerPid)];
  });
  if (apps) {
    worker = await apps.startWorker();
    workerPid = worker.pid;
  } else {
    const child = spawnChild(script('raw-worker'), REDIS_URL, [queueOf('single'), prefix, String(CONCURRENCY)]);
    worker = child;
    workerPid = child.proc.pid!;
  }
  await firstSeen;
  await done.reach(N);
  const processing = {
    rate: (N - 1) / ((done.state.lastAt - done.state.firstAt) / 1000),
    workerCpuUs: ((processCpuSeconds(workerPid) - cpu0) * 1e6) / (N - 1),
    redisCpuUs: (((await redisCpuSeconds()) - redis0) * 1e6) / (N - 1),
  };
  const e2e = await runProducer(side, queueOf('single'), prefix, 'single');
  await done.reach(2 * N);
  const endToEnd = { rate: N / ((done.state.lastAt - e2e.goAt) / 1000), producerRate: N / e2e.report.seconds };
  await done.close();
  if ('stop' in worker) await worker.stop('SIGTERM');
  else {
    worker.proc.kill('SIGTERM');
    await worker.gone;
  }
  if (apps) await apps.scheduler.stop('SIGTERM');
  const leftovers = await probe.keys(`${prefix}:*`);
  if (leftovers.length) await probe.unlink(...leftovers);
  return { producer, processing, endToEnd };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (x: number) => Math.round(x).toLocaleString('en-US').replace(/,/g, ' ');

function table(results: Record<Side, Round[]>): void {
  // [label, value on the raw side, value on the Drover side (default: the same measure), is a rate]
  type Row = [string, (r: Round) => number, ((r: Round) => number) | undefined, boolean];
  const p = (r: Round, m: ProducerMode) => r.producer[m]!;
  const rows: Row[] = [
    ['producer, one call per job (calls/s)', (r) => p(r, 'single').rate, undefined, true],
    ["  vs raw given Drover's job (calls/s)", (r) => p(r, 'shaped').rate, (r) => p(r, 'single').rate, true],
    ['producer, steady state (calls/s)', (r) => p(r, 'steady').rate, undefined, true],
    ['producer, bulk (jobs/s)', (r) => p(r, 'bulk').rate, undefined, true],
    ['producer, idempotent (calls/s)', (r) => p(r, 'idempotent').rate, undefined, true],
    ['idempotent, steady state (calls/s)', (r) => p(r, 'steady-idempotent').rate, undefined, true],
    ['processing (jobs/s)', (r) => r.processing.rate, undefined, true],
    ['end to end (jobs/s)', (r) => r.endToEnd.rate, undefined, true],
    ['producer during end to end (calls/s)', (r) => r.endToEnd.producerRate, undefined, true],
    ['producer CPU, node (µs/call)', (r) => p(r, 'single').cpuUs, undefined, false],
    ['  steady state (µs/call)', (r) => p(r, 'steady').cpuUs, undefined, false],
    ["  raw given Drover's job (µs/call)", (r) => p(r, 'shaped').cpuUs, (r) => p(r, 'single').cpuUs, false],
    ['producer CPU, redis-server (µs/call)', (r) => p(r, 'single').redisCpuUs, undefined, false],
    ['idempotent CPU, node (µs/call)', (r) => p(r, 'idempotent').cpuUs, undefined, false],
    ['  steady state (µs/call)', (r) => p(r, 'steady-idempotent').cpuUs, undefined, false],
    ['idempotent CPU, redis-server (µs/call)', (r) => p(r, 'idempotent').redisCpuUs, undefined, false],
    ['Redis bytes per queued job (used_memory)', (r) => p(r, 'single').bytesPerJob, undefined, true],
    ["  vs raw given Drover's job", (r) => p(r, 'shaped').bytesPerJob, (r) => p(r, 'single').bytesPerJob, true],
    ['processing CPU, worker (µs/job)', (r) => r.processing.workerCpuUs, undefined, false],
    ['processing CPU, redis-server (µs/job)', (r) => r.processing.redisCpuUs, undefined, false],
  ];
  console.log(`\n${N} jobs, ${IN_FLIGHT} calls in flight, concurrency ${CONCURRENCY}, ${ROUNDS} rounds (medians)`);
  console.log(`${'measure'.padEnd(42)} ${'raw'.padStart(9)} ${'drover'.padStart(9)}   ratio   per-round ratios`);
  for (const [label, getRaw, getDrover = getRaw, isRate] of rows) {
    const raw = median(results.raw.map(getRaw));
    const drover = median(results.drover.map(getDrover));
    const perRound = results.raw.map((r, i) => (getDrover(results.drover[i]!) / getRaw(r)).toFixed(2)).join(' ');
    const ratio = isRate ? (drover / raw).toFixed(2) : '';
    console.log(
      `${label.padEnd(42)} ${fmt(raw).padStart(9)} ${fmt(drover).padStart(9)}   ${ratio.padStart(5)}   ${isRate ? perRound : ''}`,
    );
  }
}

async function main(): Promise<void> {
  console.log(
    `load average at start: ${(await import('node:os'))
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  await round('raw');
  await round('drover');
  const results: Record<Side, Round[]> = { raw: [], drover: [] };
  for (let i = 0; i < ROUNDS; i++) {
    for (const side of (i % 2 === 0 ? ['raw', 'drover'] : ['drover', 'raw']) as Side[]) {
      const r = await round(side);
      results[side].push(r);
      console.log(
        `round ${i + 1} ${side.padEnd(6)} producer ${fmt(r.producer.single!.rate)}/s bulk ${fmt(r.producer.bulk!.rate)}/s ` +
          `idempotent ${fmt(r.producer.idempotent!.rate)}/s processing ${fmt(r.processing.rate)}/s end-to-end ${fmt(r.endToEnd.rate)}/s`,
      );
    }
  }
  table(results);
  console.log(
    `load average at end: ${(await import('node:os'))
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  probe.disconnect();
  // BullMQ's Queue objects on the shared probe connection hold the event loop open.
  process.exit(0);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
