/**
 * Node CPU per steady `enqueue` call of the NestJS client against raw BullMQ `Queue.add`: the
 * as-deployed bench's `steady` producer, timed by the process's CPU instead of the wall clock (which
 * the other processes of a shared machine disturb far more). Each producer is a process of its own
 * (bench/deployed/cpu-producer) on the same Redis; it makes PRODUCER_CPU_WARM calls first, then
 * times PRODUCER_CPU_WINDOWS windows of BENCH_JOBS calls with BENCH_IN_FLIGHT in flight; its figure
 * is the median window. Rounds alternate the sides; medians over BENCH_ROUNDS are printed.
 *
 * PRODUCER_CPU_BUILDS (comma-separated checkouts, each built with `node scripts/build.mjs`) compares
 * several builds' clients in the same rounds, each with its own scheduler and prefix; default: this
 * one. Each build after the first is also given as its mean per-round difference from the first
 * (± standard error): a producer process keeps the level it settles at, so rounds scatter by a few
 * µs and only paired rounds show a difference of one. PRODUCER_CPU_CHILD=deployed runs each build's
 * own as-deployed `steady` producer instead (BENCH_WARM calls, one window; its dist/bench needs
 * `npx swc bench -d dist --config-file .swcrc` in that checkout). With PRODUCER_CPU_PROFILES=<dir>,
 * every producer also writes a V8 profile of one more window there (summarise them with
 * `node dist/bench/deployed/profile-summary.js <files>`). PRODUCER_CPU_MODE=idempotent gives every
 * call a key of its own (raw `jobId`, Drover `idempotencyKey`). Env: REDIS_URL, BENCH_JOBS (20000),
 * BENCH_ROUNDS (5), BENCH_IN_FLIGHT (200), PRODUCER_CPU_WARM (20000), PRODUCER_CPU_WINDOWS (3).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { startApp, uniquePrefix, type AppProcess } from '@drover/testing';
import { script, spawnChild } from './deployed/child';
import type { ProducerReport } from './deployed/protocol';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.env.BENCH_JOBS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 200);
const WARM = Number(process.env.PRODUCER_CPU_WARM ?? 20_000);
const WINDOWS = Number(process.env.PRODUCER_CPU_WINDOWS ?? 3);
const PROFILES = process.env.PRODUCER_CPU_PROFILES;
const THIS_ROOT = resolve(__dirname, '..', '..');
const BUILDS = (process.env.PRODUCER_CPU_BUILDS ?? THIS_ROOT).split(',').map((b) => resolve(b));
const QUEUE = 'q-steady';
/** PRODUCER_CPU_CHILD=deployed: each build's as-deployed `steady` producer (BENCH_WARM, one window) instead. */
const DEPLOYED = process.env.PRODUCER_CPU_CHILD === 'deployed';

interface Side {
  label: string;
  kind: 'raw' | 'drover';
  root: string;
  prefix: string;
  scheduler?: AppProcess;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

interface Produced {
  /** The producer's µs of CPU per call, one per window. */
  windows: number[];
  redisUs?: number;
  schedulerUs?: number;
}

/** One producer process. */
function produce(side: Side, round: number, redis: Redis): Promise<Produced> {
  if (DEPLOYED) return deployedProducer(side, redis);
  const profile = PROFILES ? join(PROFILES, `${side.label}-${round}.cpuprofile`) : '';
  const args = [side.kind, side.root, QUEUE, side.prefix, N, IN_FLIGHT, WARM, WINDOWS, profile].map(String);
  const child = spawn(process.execPath, [script('cpu-producer'), ...args], {
    env: { ...process.env, REDIS_URL },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((done, fail) =>
    child.once('exit', (code) =>
      code === 0
        ? done({ windows: (JSON.parse(out) as { cpuUs: number[] }).cpuUs })
        : fail(new Error(`${side.label}: exit ${code}`)),
    ),
  );
}

/** CPU seconds a process has used so far (utime + stime from /proc). */
function processCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return field('used_cpu_user') + field('used_cpu_sys');
}

/**
 * The as-deployed bench's own `steady` producer of the side's build (BENCH_WARM calls first): one
 * window, and what redis-server and the side's scheduler spent meanwhile (µs per call).
 */
async function deployedProducer(side: Side, redis: Redis): Promise<Produced> {
  const file = join(side.root, 'dist', 'bench', 'deployed', `${side.kind}-producer.js`);
  const child = spawnChild(file, REDIS_URL, [QUEUE, side.prefix, 'steady', String(N), String(IN_FLIGHT)]);
  await child.ready;
  const scheduler0 = side.scheduler ? processCpuSeconds(side.scheduler.pid) : 0;
  const redis0 = await redisCpuSeconds(redis);
  child.proc.stdin!.end('go\n');
  const report = JSON.parse(await child.nextLine()) as ProducerReport;
  const redisUs = (((await redisCpuSeconds(redis)) - redis0) * 1e6) / N;
  const schedulerUs = side.scheduler ? ((processCpuSeconds(side.scheduler.pid) - scheduler0) * 1e6) / N : 0;
  await child.gone;
  return { windows: [report.cpuUs], redisUs, schedulerUs };
}

/** A Drover side: the build's scheduler publishes the queue's policy under a prefix of its own. */
async function droverSide(root: string, i: number): Promise<Side> {
  const prefix = uniquePrefix(`cpu${i}`);
  const file = join(mkdtempSync(join(tmpdir(), 'drover-bench-')), 'drover.yaml');
  writeFileSync(file, stringify({ queues: [{ name: QUEUE, concurrency: 50 }] }));
  const scheduler = await startApp('scheduler', {
    entry: join(root, 'dist', 'apps', 'scheduler', 'main.js'),
    env: { REDIS_URL, DROVER_PREFIX: prefix, DROVER_CONFIG: file, LOG_LEVEL: 'warn', DROVER_INSTANCE_ID: `cpu-${i}` },
  });
  const label = BUILDS.length === 1 ? 'drover' : `drover:${basename(root)}`;
  return { label, kind: 'drover', root, prefix, scheduler };
}

async function main(): Promise<void> {
  const redis = new Redis(REDIS_URL);
  const sides: Side[] = [{ label: 'raw', kind: 'raw', root: THIS_ROOT, prefix: uniquePrefix('cpuraw') }];
  for (const [i, root] of BUILDS.entries()) sides.push(await droverSide(root, i));
  const how = DEPLOYED
    ? `the as-deployed steady producers, ${N} calls after BENCH_WARM`
    : `${N} steady calls x ${WINDOWS} windows after ${WARM}`;
  const mode = process.env.PRODUCER_CPU_MODE === 'idempotent' ? ' with a key per call' : '';
  console.log(`producer CPU, ${how}${mode}, ${IN_FLIGHT} in flight; load ${load()}`);
  const figures = new Map<string, number[]>(sides.map((s) => [s.label, []]));
  try {
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating: each round starts with the next side.
      const order = sides.map((_, k) => sides[(k + r) % sides.length]!);
      for (const side of order) {
        const { windows, redisUs, schedulerUs } = await produce(side, r, redis);
        figures.get(side.label)!.push(median(windows));
        const others =
          redisUs === undefined ? '' : `  (redis-server ${redisUs.toFixed(1)}, scheduler ${schedulerUs!.toFixed(1)})`;
        console.log(
          `round ${r + 1} ${side.label.padEnd(24)} ${windows.map((w) => w.toFixed(1)).join(' ')} µs/call${others}  load ${load()}`,
        );
        const q = new Queue(QUEUE, { connection: redis, prefix: side.prefix });
        await q.obliterate({ force: true });
        await q.close();
      }
    }
  } finally {
    for (const s of sides) await s.scheduler?.stop();
    redis.disconnect();
  }
  const raw = median(figures.get('raw')!);
  const first = figures.get(sides[1]!.label)!;
  console.log(`\nmedian node CPU per call over ${ROUNDS} rounds (load ${load()}):`);
  for (const [label, xs] of figures) {
    console.log(
      `  ${label.padEnd(24)} ${median(xs).toFixed(1).padStart(6)} µs  (${(median(xs) / raw).toFixed(2)}x raw; rounds ${xs.map((x) => x.toFixed(1)).join(' ')})`,
    );
  }
  for (const side of sides.slice(2)) {
    const d = figures.get(side.label)!.map((x, r) => x - first[r]!);
    const mean = d.reduce((a, b) => a + b, 0) / d.length;
    const se = Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / (d.length - 1) / d.length);
    console.log(`  ${side.label} − ${sides[1]!.label}, paired by round: ${mean.toFixed(1)} ± ${se.toFixed(1)} µs`);
  }
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
