/**
 * Part 2 of bench/scheduler.bench.ts, reconcile at scale: N routines — first reconcile, a restart
 * with nothing changed (time and BullMQ writes), the leader's watchdog, and Redis bytes per routine.
 * Also the routines that never fire which part 1 adds as idle ones.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pino from 'pino';
import { parseBundle, type Routine } from '@drover/core';
import { SystemClock, DroverKeys, RedisConnections } from '@drover/redis';
import { DroverMetrics } from '@drover/metrics';
import {
  DEFAULT_SCHEDULER_OPTIONS,
  Disarmer,
  FiresQueue,
  LeaderElector,
  Reconciler,
  Watchdog,
} from '@drover/scheduler';
import { BullQueues, RoutineIndex, RoutineStore, SlotClaims, SlotSkips } from '@drover/store';
import { ManualClock, uniquePrefix } from '@drover/testing';

/** Routines left for later whose deferred write the bench times. */
const DUE_SAMPLE = 10_000;

/**
 * The cron routines' expression: one shared by all (the default), or with
 * `BENCH_SCALE_CRON=distinct` one of their own each (minute, hour, day and month from `i`), so no
 * two share a slot and every next-slot computation is done afresh.
 */
function cronOf(i: number): string {
  if (process.env.BENCH_SCALE_CRON !== 'distinct') return '0 3 1 1 *';
  const k = (i - 1) / 2;
  return `${k % 60} ${Math.floor(k / 60) % 24} ${(Math.floor(k / 1_440) % 28) + 1} ${(Math.floor(k / 40_320) % 12) + 1} *`;
}

export function routine(i: number): Routine {
  const res = parseBundle(
    {
      routines: [
        {
          name: `scale-${i}`,
          jobType: 'noop',
          queue: 'default',
          // Half cron, half interval; none fires during the benchmark.
          trigger:
            i % 2 ? { kind: 'cron', cron: cronOf(i), tz: 'Europe/Berlin' } : { kind: 'interval', everyMs: 86_400_000 },
        },
      ],
    },
    { knownQueues: ['default'] },
  );
  if (!res.ok) throw new Error(res.errors.join());
  return res.bundle.routines[0]!;
}

async function commandCalls(redis: Redis, names: string[]): Promise<number> {
  const info = await redis.info('commandstats');
  return names.reduce((sum, n) => sum + Number(new RegExp(`cmdstat_${n}:calls=(\\d+)`).exec(info)?.[1] ?? 0), 0);
}

export async function reconcileAtScale(redisUrl: string, scale: number): Promise<void> {
  const probe = new Redis(redisUrl);
  const keys = new DroverKeys(uniquePrefix('scale'), false);
  const log = pino({ level: 'warn' });
  const clock = new SystemClock();
  const conns = new RedisConnections({ kind: 'url', url: redisUrl, tls: false }, 'bench');
  const memBefore = Number(/used_memory:(\d+)/.exec(await probe.info('memory'))?.[1]);
  const fires = FiresQueue.create(conns, keys);
  const elector = new LeaderElector(conns.open('command', 'leader'), keys, { instanceId: 'bench', leaseMs: 600_000 });
  elector.start();
  const lead = await elector.waitForLeadership();
  const isCurrent = () => true;
  const routines = new RoutineStore(conns.command, keys);
  const index = new RoutineIndex(conns.command, keys);
  const first = new Reconciler(conns, keys, routines, index, fires, clock, log);
  // Grown in steps; each step's reconcile writes only the routines it added (the diff).
  const steps = [...new Set([Math.round(scale / 10), Math.round(scale / 2), scale])].filter((n) => n > 0);
  const curve: {
    routines: number;
    createS: number;
    reconcileS: number;
    written: number;
    later: number;
    bytes: number;
  }[] = [];
  let have = 0;
  let firstS = 0;
  let createS = 0;
  let upserted = 0;
  let later = 0;
  for (const target of steps) {
    const defs = Array.from({ length: target - have }, (_, i) => routine(have + i));
    let t = performance.now();
    await routines.createMany(defs, 'api', clock.now());
    const stepCreateS = (performance.now() - t) / 1000;
    t = performance.now();
    const report = await first.reconcileAll(lead, isCurrent);
    const stepS = (performance.now() - t) / 1000;
    const mem = Number(/used_memory:(\d+)/.exec(await probe.info('memory'))?.[1]);
    curve.push({
      routines: target,
      createS: stepCreateS,
      reconcileS: stepS,
      written: report.upserted.length,
      later: report.later.length,
      bytes: (mem - memBefore) / target,
    });
    firstS += stepS;
    createS += stepCreateS;
    upserted += report.upserted.length;
    later += report.later.length;
    have = target;
  }
  const memAfter = Number(/used_memory:(\d+)/.exec(await probe.info('memory'))?.[1]);

  // A restart: a new reconciler, same Redis, nothing changed.
  const writeCmds = ['evalsha', 'eval', 'hset', 'hdel', 'zadd', 'zrem', 'set', 'del', 'lrem', 'lpush', 'fcall'];
  const writesBefore = await commandCalls(probe, writeCmds);
  const second = new Reconciler(conns, keys, routines, index, fires, clock, log);
  const t = performance.now();
  const onElection = await second.onElection(lead, isCurrent);
  const restartS = (performance.now() - t) / 1000;
  const writes = (await commandCalls(probe, writeCmds)) - writesBefore - 1; // - the INFO probe itself is no write

  // The leader's watchdog at this scale: its first pass looks at every routine created (their
  // entries start at 0), the next ones read only what is due; a full pass's rebuild of its index.
  const bull = new BullQueues(conns, keys);
  const makeWatchdog = () =>
    new Watchdog(
      routines,
      index,
      new Disarmer(new SlotClaims(conns.command, keys), bull, clock, log, new SlotSkips(conns.command, keys)),
      bull,
      clock,
      new DroverMetrics({ defaultMetrics: false }),
      DEFAULT_SCHEDULER_OPTIONS,
      log,
      // No routine here is buffer-one: the watchdog never asks the run store for a buffered run.
      { startBuffered: () => Promise.resolve(undefined) } as unknown as ConstructorParameters<typeof Watchdog>[8],
    );
  const watchdog = makeWatchdog();
  const timed = async (fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    return (performance.now() - t0) / 1000;
  };
  const firstPassS = await timed(() => watchdog.pass(lead, isCurrent));
  const passWritesBefore = await commandCalls(probe, writeCmds);
  const idlePassS = await timed(() => watchdog.pass(lead, isCurrent));
  const passWrites = (await commandCalls(probe, writeCmds)) - passWritesBefore - 1;
  const snap = await second.snapshot();
  const rebuildS = await timed(() => makeWatchdog().rebuild(lead, snap));

  const crons = process.env.BENCH_SCALE_CRON === 'distinct' ? 'each its own' : 'one expression';
  console.log(`\n-- reconcile at scale: ${scale} routines (half cron with tz, ${crons}; half interval)`);
  for (const c of curve) {
    console.log(
      `   at ${String(c.routines).padStart(7)}: created in ${c.createS.toFixed(2)} s, reconciled ${c.written + c.later} new ` +
        `(${c.later} left for later) in ${c.reconcileS.toFixed(2)} s ` +
        `(${((c.reconcileS * 1e6) / Math.max(1, c.written + c.later)).toFixed(0)} µs each), ` +
        `${Math.round(c.bytes)} B per routine`,
    );
  }
  console.log(`   create routines (bulk)                 ${createS.toFixed(2)} s`);
  console.log(
    `   first reconcile, all steps             ${firstS.toFixed(2)} s  (${upserted} Job Schedulers written, ${later} left for later)`,
  );
  if (later > 0) {
    // What the horizon moves to later: the leader's writeDue, each routine's schedulers an hour
    // before its slot. Measured on the first DUE_SAMPLE with a clock a year ahead (all are due).
    const ahead = new ManualClock(clock.now() + 400 * 86_400_000);
    const writer = new Reconciler(conns, keys, routines, index, fires, ahead, log);
    const t0 = performance.now();
    let done = 0;
    while (done < Math.min(DUE_SAMPLE, later)) done += (await writer.writeDue(lead, isCurrent)).length;
    const dueS = (performance.now() - t0) / 1000;
    console.log(
      `   writing them when due (leader, ${done})     ${((dueS * 1e6) / done).toFixed(0)} µs per routine, in steps of 1000`,
    );
  }
  console.log(
    `   restart, nothing changed               ${restartS.toFixed(2)} s  (a new leader reconciles: ${onElection}; ${Math.max(0, writes)} write commands)`,
  );
  console.log(`   Redis bytes per routine (all keys)     ${Math.round((memAfter - memBefore) / scale)} B`);
  console.log(`   watchdog, first pass (looks at all)    ${firstPassS.toFixed(2)} s`);
  console.log(
    `   watchdog, a pass with nothing due      ${(idlePassS * 1000).toFixed(1)} ms  (${Math.max(0, passWrites)} write commands)`,
  );
  console.log(`   index rebuild (a full pass, cold)      ${rebuildS.toFixed(2)} s`);
  await bull.closeAll();
  await elector.stop();
  await fires.obliterate({ force: true }).catch(() => undefined);
  await fires.close();
  await conns.closeAll();
  probe.disconnect();

  const rawS = await rawUpserts(redisUrl, scale);
  console.log(
    `   raw BullMQ: the same ${scale} Job Schedulers  ${rawS.toFixed(2)} s  (first reconcile / raw: ${(firstS / rawS).toFixed(2)})`,
  );
}

/**
 * Raw BullMQ writing the Job Schedulers of the same triggers (its own cron strategy), 128 in flight
 * as the reconciler keeps them: what a hand-rolled reconcile of these routines would spend.
 */
async function rawUpserts(redisUrl: string, scale: number): Promise<number> {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue('raw-scale', { connection, prefix: uniquePrefix('rawscale') });
  await queue.waitUntilReady();
  const triggers = Array.from({ length: scale }, (_, i) => routine(i).trigger!);
  let next = 0;
  const lane = async () => {
    while (next < triggers.length) {
      const i = next++;
      const t = triggers[i]!;
      const repeat =
        t.kind === 'cron' ? { pattern: t.cron, tz: t.tz } : { every: t.kind === 'interval' ? t.everyMs : 0 };
      await queue.upsertJobScheduler(`r${i}`, repeat, { name: 'fire', data: { routine: `scale-${i}` } });
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 128 }, lane));
  const seconds = (performance.now() - t0) / 1000;
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  connection.disconnect();
  return seconds;
}
