/**
 * Scheduler benchmarks, against the private redis-server scripts/bench.mjs starts:
 *
 * 1. Fire lateness (run start − slot time) of R routines firing every second for D seconds,
 *    through Drover (real scheduler + worker processes, `http.request` to an HTTP oracle here)
 *    and through raw BullMQ Job Schedulers with a plain Worker in its own process making the same
 *    HTTP call, in the same run: BENCH_ROUNDS (5) alternating rounds, each printed with the load
 *    average, then the medians and the median of the rounds' Drover/raw ratios. The oracle
 *    looks only at the newest hit to know the window is over, so its bookkeeping costs both sides
 *    the same, and little.
 *    Each round also runs Drover again with BENCH_IDLE_ROUTINES (100000) more routines that never
 *    fire in the window, and loses one fire among them: the ratio to the same routines alone and
 *    the repair's lateness are medians of the rounds too.
 * 2. Reconcile at scale (reconcile-at-scale.ts): N routines — first reconcile, a restart with
 *    nothing changed (time and BullMQ writes), and Redis bytes per routine.
 *
 * Env: REDIS_URL, BENCH_ROUTINES (200), BENCH_SECONDS (20), BENCH_ROUNDS (5), BENCH_SCALE_ROUTINES
 * (100000; 0 skips part 2), BENCH_IDLE_ROUTINES (= BENCH_SCALE_ROUTINES). The Drover side takes
 * DROVER_ARM_LEAD_MS from the environment like the apps do.
 */
import 'reflect-metadata';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { DroverKeys, RedisConnections } from '@drover/redis';
import { FIRES_QUEUE, RoutineStore } from '@drover/store';
import { startApp, startHttpOracle, uniquePrefix, type HttpOracle, type OracleHit } from '@drover/testing';
import { script, spawnChild } from './deployed/child';
import { reconcileAtScale, routine } from './reconcile-at-scale';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ROUTINES = Number(process.env.BENCH_ROUTINES ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const SCALE = Number(process.env.BENCH_SCALE_ROUTINES ?? 100_000);
/** Alternating raw/Drover lateness rounds; figures are medians over them. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Routines that never fire, present during a second Drover lateness run (0: no such run). */
const IDLE = Number(process.env.BENCH_IDLE_ROUTINES ?? SCALE);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** A run this late makes its slot one to name: a stall, not the spread of a burst. */
const STALL_MS = 1000;

function stats(hits: { slot: number; late: number }[], from: number) {
  const s = hits.map((h) => h.late).sort((a, b) => a - b);
  // Where in the window a tail comes from: a cold start shows in its first slots, a stall anywhere.
  const stalled = [...new Set(hits.filter((h) => h.late > STALL_MS).map((h) => (h.slot - from) / 1000))];
  return {
    n: s.length,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    p99: percentile(s, 99),
    stalled: stalled.sort((a, b) => a - b),
  };
}

/** The window is over once a hit for a slot after it arrives (only the newest hit is looked at). */
function waitPast(oracle: HttpOracle, to: number): Promise<void> {
  return oracle.waitFor(
    'the measured window',
    (h) => h.length > 0 && Date.parse(h[h.length - 1]!.scheduledFor) >= to + 1000,
    (SECONDS + 30) * 1000,
  );
}

/** Lateness of the hits whose slot lies in [from, to). */
function lateness(oracle: HttpOracle, from: number, to: number): ReturnType<typeof stats> {
  const hits = oracle.hits
    .filter((h) => h.routine !== 'watched')
    .map((h) => ({ slot: Date.parse(h.scheduledFor), at: h.receivedAt }))
    .filter((h) => h.slot >= from && h.slot < to)
    .map((h) => ({ slot: h.slot, late: h.at - h.slot }));
  return stats(hits, from);
}

type Lateness = ReturnType<typeof stats>;

/** Slots from the first one with a run: how a cluster starts, which the window (steady state) leaves out. */
const FIRST_SLOTS = 3;

/** Lateness of the first {@link FIRST_SLOTS} slots that had a run (the schedules were just written). */
function firstSlots(oracle: HttpOracle): Lateness {
  const slots = oracle.hits.filter((h) => h.routine !== 'watched').map((h) => Date.parse(h.scheduledFor));
  const first = Math.min(...slots);
  return lateness(oracle, first, first + FIRST_SLOTS * 1000);
}

/**
 * Drover's lateness; with `idle` > 0, that many more routines that never fire during the window
 * (half cron with a zone, half daily) exist first, so a fire is shown to cost no more among 100k.
 */
async function droverLateness(idle = 0): Promise<Lateness & { first: Lateness; repairMs?: number }> {
  const oracle = await startHttpOracle();
  const file = join(mkdtempSync(join(tmpdir(), 'drover-bench-')), 'drover.yaml');
  writeFileSync(
    file,
    stringify({
      queues: [{ name: 'default', concurrency: 50 }],
      routines: [
        ...Array.from({ length: ROUTINES }, (_, i) => ({
          name: `r${i}`,
          jobType: 'http.request',
          queue: 'default',
          trigger: { kind: 'interval', everyMs: 1000 },
          payload: { url: `${oracle.url}/hit`, method: 'POST' },
        })),
        // Among idle routines: one more, not armed ahead (forbid), whose fire the bench then loses.
        ...(idle > 0
          ? [
              {
                name: 'watched',
                jobType: 'http.request',
                queue: 'default',
                trigger: { kind: 'interval', everyMs: 5000 },
                concurrencyPolicy: 'forbid',
                payload: { url: `${oracle.url}/hit`, method: 'POST' },
              },
            ]
          : []),
      ],
    }),
  );
  const prefix = uniquePrefix('bench');
  const lead = process.env.DROVER_ARM_LEAD_MS;
  const env = {
    REDIS_URL,
    DROVER_PREFIX: prefix,
    DROVER_CONFIG: file,
    LOG_LEVEL: 'warn',
    ...(lead !== undefined && { DROVER_ARM_LEAD_MS: lead }),
  };
  const keys = new DroverKeys(prefix, false);
  const conns = new RedisConnections({ kind: 'url', url: REDIS_URL, tls: false }, 'bench-idle');
  if (idle > 0) {
    await new RoutineStore(conns.command, keys).createMany(
      Array.from({ length: idle }, (_, i) => routine(i)),
      'api',
      Date.now(),
    );
  }
  const worker = await startApp('worker', { env: { ...env, DROVER_INSTANCE_ID: 'bench-worker' } });
  const scheduler = await startApp('scheduler', { env: { ...env, DROVER_INSTANCE_ID: 'bench-scheduler' } });
  try {
    // Measured once the leader's first reconcile has written every routine's schedule.
    const deadline = Date.now() + 180_000;
    // ... and its watchdog has looked once at every routine created (their index entries start at 0).
    const extra = idle > 0 ? 1 : 0;
    while (
      (await conns.command.hlen(keys.schedulerDefs())) < idle + ROUTINES + extra ||
      (await conns.command.zcount(keys.routineDue(), '-inf', 0)) > 0
    ) {
      if (Date.now() > deadline) throw new Error('the first reconcile did not finish within 180 s');
      await new Promise((r) => setTimeout(r, 500));
    }
    const from = Math.ceil((Date.now() + 3000) / 1000) * 1000;
    const to = from + SECONDS * 1000;
    await waitPast(oracle, to);
    const measured = { ...lateness(oracle, from, to), first: firstSlots(oracle) };
    if (idle === 0) return measured;
    const repairMs = await loseAFire(conns, keys, oracle).catch((err: unknown) => {
      console.error(err);
      return NaN;
    });
    return { ...measured, repairMs };
  } finally {
    await Promise.all([scheduler.stop('SIGTERM'), worker.stop('SIGTERM')]);
    await oracle.close();
    let cursor = '0';
    do {
      const [next, found] = await conns.command.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 5000);
      if (found.length) await conns.command.unlink(...found);
      cursor = next;
    } while (cursor !== '0');
    await conns.closeAll();
  }
}

/**
 * Loses the next fire of the routine `watched` (its delayed job dropped, as a Redis that lost the
 * write would) and answers how long after its slot the run reached the oracle: the watchdog's repair.
 */
async function loseAFire(conns: RedisConnections, keys: DroverKeys, oracle: HttpOracle): Promise<number> {
  const fires = new Queue(keys.bullQueueName(FIRES_QUEUE), { connection: conns.command, prefix: keys.bullPrefix });
  try {
    // Its next fire is the delayed job `repeat:watched:<slot>` (every 5 s, not armed: no lag).
    let next;
    for (const until = Date.now() + 15_000; !next && Date.now() < until;) {
      // 1.5–4 s ahead: BullMQ made this job when the previous fire started, and its worker adds it again
      // (if missing) once it has fetched that fire, which may take a while in the second's burst of fires.
      const slot = Math.ceil((Date.now() + 1500) / 5000) * 5000;
      const job = slot - Date.now() <= 4000 ? await fires.getJob(`repeat:watched:${slot}`) : undefined;
      if (job && (await job.isDelayed())) next = job;
      else await new Promise((r) => setTimeout(r, 100));
    }
    if (!next) throw new Error("no fire of 'watched' to lose");
    const slot = Number(next.id!.split(':').at(-1));
    await conns.command.multi().zrem(fires.keys.delayed!, next.id!).del(fires.toKey(next.id!)).exec();
    // Lost only if BullMQ does not put it back (it adds a scheduler's next job when one starts).
    await new Promise((r) => setTimeout(r, 1000));
    if (await fires.getJob(next.id!)) throw new Error(`the fire ${next.id} came back: not lost`);
    // The 1 s routines have a run of this slot too: only `watched`'s is the repair.
    const iso = new Date(slot).toISOString();
    const repaired = (x: OracleHit) => x.routine === 'watched' && x.scheduledFor === iso;
    await oracle.waitFor('the lost fire repaired', (h) => h.some(repaired), 60_000);
    return oracle.hits.find(repaired)!.receivedAt - slot;
  } finally {
    await fires.close();
  }
}

async function rawLateness(): Promise<Lateness & { first: Lateness }> {
  const oracle = await startHttpOracle();
  const prefix = uniquePrefix('raw');
  const queue = new Queue('fires', { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix });
  const worker = spawnChild(script('raw-worker'), REDIS_URL, ['fires', prefix, '50', oracle.url]);
  await worker.ready;
  const start = Math.ceil((Date.now() + 1000) / 1000) * 1000;
  for (let i = 0; i < ROUTINES; i++) {
    await queue.upsertJobScheduler(`r${i}`, { every: 1000, startDate: start }, { name: `r${i}` });
  }
  try {
    const from = Math.ceil((Date.now() + 3000) / 1000) * 1000;
    const to = from + SECONDS * 1000;
    await waitPast(oracle, to);
    return { ...lateness(oracle, from, to), first: firstSlots(oracle) };
  } finally {
    worker.proc.kill('SIGTERM');
    await worker.gone;
    await queue.obliterate({ force: true });
    await queue.close();
    await oracle.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `-- fire lateness: ${ROUTINES} routines every 1 s, ${SECONDS} s window, ${ROUNDS} alternating rounds (ms, run start − slot)`,
  );
  const row = (name: string, s: Lateness) =>
    console.log(
      `   ${name.padEnd(14)} n=${s.n}  p50 ${s.p50.toFixed(0)}  p95 ${s.p95.toFixed(0)}  p99 ${s.p99.toFixed(0)}` +
        (s.stalled.length
          ? `  (slots with a run > ${STALL_MS} ms late, s into the window: ${s.stalled.join(' ')})`
          : ''),
    );
  type Measured = Lateness & { first: Lateness };
  const rounds: { raw: Measured; drover: Measured; idle?: Measured & { repairMs?: number } }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const raw = await rawLateness();
    const drover = await droverLateness();
    // Among idle routines in every round, right after the same routines alone: a ratio per round.
    const idle = IDLE > 0 ? await droverLateness(IDLE) : undefined;
    rounds.push({ raw, drover, idle });
    console.log(`   round ${i + 1}, load average ${loadavg()[0]!.toFixed(2)}`);
    row('raw BullMQ', raw);
    row('Drover', drover);
    if (idle) row(`Drover +${IDLE / 1000}k idle`, idle);
    row(`raw, first ${FIRST_SLOTS}`, raw.first);
    row(`Drover, first ${FIRST_SLOTS}`, drover.first);
    if (idle) console.log(`   a lost fire among ${IDLE} idle routines ran ${idle.repairMs} ms after its slot`);
  }
  const median = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  const med = (side: 'raw' | 'drover' | 'idle') => ({
    n: median(rounds.map((r) => r[side]?.n ?? NaN)),
    p50: median(rounds.map((r) => r[side]?.p50 ?? NaN)),
    p95: median(rounds.map((r) => r[side]?.p95 ?? NaN)),
    p99: median(rounds.map((r) => r[side]?.p99 ?? NaN)),
    stalled: [], // named per round above
  });
  const ratio = (q: 'p50' | 'p95' | 'p99') => median(rounds.map((r) => r.drover[q] / r.raw[q])).toFixed(2);
  const raw = med('raw');
  const drover = med('drover');
  const amongIdle = IDLE > 0 ? med('idle') : undefined;
  console.log(`   medians over ${ROUNDS} rounds`);
  row('raw BullMQ', raw);
  row('Drover', drover);
  if (amongIdle) row(`Drover +${IDLE / 1000}k idle`, amongIdle);
  console.log(
    `   ratio Drover/raw (median of the rounds' ratios)  p50 ${ratio('p50')}  p95 ${ratio('p95')}  p99 ${ratio('p99')}  (target: p99 ≤ 0.6)`,
  );
  const firstP99 = (side: 'raw' | 'drover') => median(rounds.map((r) => r[side].first.p99)).toFixed(0);
  console.log(
    `   the first ${FIRST_SLOTS} slots after the schedules were written, p99 (median of the rounds): raw ${firstP99('raw')}, Drover ${firstP99('drover')}`,
  );
  if (amongIdle) {
    const perRound = rounds.map((r) => r.idle!.p99 / r.drover.p99);
    console.log(
      `   among ${IDLE} idle routines / alone, p99 (median of the rounds' ratios): ${median(perRound).toFixed(2)}` +
        `  (rounds ${perRound.map((x) => x.toFixed(2)).join(' ')}; target ≤ 1.2)`,
    );
    const repairs = rounds.map((r) => r.idle!.repairMs ?? NaN);
    console.log(
      `   a lost fire among ${IDLE} idle routines ran ${median(repairs).toFixed(0)} ms after its slot` +
        ` (median; rounds ${repairs.join(' ')}; target ≤ 5000)`,
    );
  }
  const expected = ROUTINES * SECONDS;
  if (drover.n < expected || raw.n < expected) console.log(`   note: expected ${expected} runs per side`);
  if (SCALE > 0) await reconcileAtScale(REDIS_URL, SCALE);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
