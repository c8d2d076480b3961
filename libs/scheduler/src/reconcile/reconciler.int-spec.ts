import pino from 'pino';
import { parseBundle, type Routine } from '@drover/core';
import { SystemClock, DroverKeys, RedisConnections, StaleLeaderError } from '@drover/redis';
import { RoutineIndex, RoutineStore } from '@drover/store';
import { RedisMonitor, testRedisUrl, uniquePrefix } from '@drover/testing';
import { FiresQueue } from '../fires/fires-queue.provider';
import { LeaderElector, type Leadership } from '../leadership/leader-elector';
import { DEFAULT_SCHEDULER_OPTIONS } from '../scheduler-options';
import { Reconciler } from './reconciler.service';

function routine(name: string, trigger: Record<string, unknown>, extra: Record<string, unknown> = {}): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name, jobType: 'noop', queue: 'default', trigger, ...extra }],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

describe('Reconciler against real Redis and BullMQ Job Schedulers', () => {
  let conns: RedisConnections;
  let keys: DroverKeys;
  let fires: FiresQueue;
  let reconciler: Reconciler;
  let routines: RoutineStore;
  let elector: LeaderElector;
  let lead: Leadership;
  const clock = new SystemClock();
  const isCurrent = () => elector.leadership?.token === lead.token;

  beforeEach(async () => {
    conns = new RedisConnections({ kind: 'url', url: testRedisUrl(), tls: false }, 'reconcile-test');
    keys = new DroverKeys(uniquePrefix('rec'), false);
    fires = FiresQueue.create(conns, keys);
    routines = new RoutineStore(conns.command, keys);
    reconciler = new Reconciler(
      conns,
      keys,
      routines,
      new RoutineIndex(conns.command, keys),
      fires,
      clock,
      pino({ level: 'silent' }),
      // Every schedule written at once: these tests look at BullMQ writes (reconciler-later.int-spec.ts: the horizon).
      { ...DEFAULT_SCHEDULER_OPTIONS, scheduleHorizonMs: Number.POSITIVE_INFINITY },
    );
    // A lease long enough to outlast a reconcile of thousands of routines on a loaded machine: these
    // tests are about what the reconciler writes, not about losing the lease (one test does that itself).
    elector = new LeaderElector(conns.open('command', 'leader'), keys, { instanceId: 'test', leaseMs: 30_000 });
    elector.start();
    lead = await elector.waitForLeadership();
  });

  afterEach(async () => {
    await elector.stop();
    await fires.close();
    await conns.closeAll();
  });

  it('creates one Job Scheduler per firing routine and none for manual or paused ones', async () => {
    const now = clock.now();
    await routines.upsert(routine('cron-a', { kind: 'cron', cron: '*/5 * * * * *' }), 'api', now);
    await routines.upsert(routine('every-b', { kind: 'interval', everyMs: 7000 }), 'api', now);
    await routines.upsert(routine('manual-c', { kind: 'manual' }), 'api', now);
    await routines.upsert(routine('paused-d', { kind: 'interval', everyMs: 1000 }, { status: 'paused' }), 'api', now);
    const report = await reconciler.reconcileAll(lead, isCurrent);
    expect(report.upserted.sort()).toEqual(['cron-a', 'every-b']);
    const schedulers = await fires.getJobSchedulers();
    expect(schedulers.map((s) => s.key).sort()).toEqual(['cron-a', 'every-b']);
    const every = schedulers.find((s) => s.key === 'every-b')!;
    // The interval's slots lie on the epoch grid, whenever the scheduler was created; its fires
    // come half an interval (at most 500 ms) after each slot, since its runs are armed ahead.
    expect(every.next! % 7000).toBe(500);
    expect(every.template?.data).toEqual({ routine: 'every-b', lagMs: 500 });
    expect(schedulers.find((s) => s.key === 'cron-a')!.pattern).toBe('*/5 * * * * *');
  });

  it('adds a fire that arms the first slots of a schedule it writes when they are near, once', async () => {
    const now = clock.now();
    await routines.upsert(routine('soon', { kind: 'interval', everyMs: 5000 }), 'api', now);
    await routines.upsert(
      routine('forbid', { kind: 'interval', everyMs: 5000 }, { concurrencyPolicy: 'forbid' }),
      'api',
      now,
    );
    await routines.upsert(routine('yearly', { kind: 'cron', cron: '0 0 1 1 *' }), 'api', now);
    const armFires = async () =>
      (await fires.getJobs(['wait', 'delayed'])).map((j) => j.id!).filter((id) => id.startsWith('arm-'));
    await reconciler.reconcileAll(lead, isCurrent);
    const first = await armFires();
    expect(first).toEqual([expect.stringMatching(/^arm-soon-\d+$/)]);
    // Nothing changed: the schedule is not written again, and neither is the fire.
    await reconciler.reconcileAll(lead, isCurrent);
    expect(await armFires()).toEqual(first);
    // A changed trigger is a schedule written again.
    await routines.upsert(routine('soon', { kind: 'interval', everyMs: 4000 }), 'api', clock.now() + 1);
    await reconciler.reconcileOne('soon', lead, isCurrent);
    expect(await armFires()).toHaveLength(2);
  });

  it('writes nothing when nothing changed (a restart is free)', async () => {
    const now = clock.now();
    for (let i = 0; i < 20; i++)
      await routines.upsert(routine(`r${i}`, { kind: 'interval', everyMs: 60_000 }), 'api', now);
    expect((await reconciler.reconcileAll(lead, isCurrent)).upserted).toHaveLength(20);
    const monitor = await RedisMonitor.start();
    const second = await reconciler.reconcileAll(lead, isCurrent);
    expect(second).toEqual({ upserted: [], later: [], removed: [], unchanged: 20 });
    // Only this test's keys: test files run side by side on the same Redis.
    const writes = (await monitor.commands())
      .filter((args) => /^(evalsha|eval|hset|zadd|del|set)$/.test(args[0] ?? ''))
      .map((args) => args.join(' '))
      .filter((line) => line.includes(`${keys.prefix}:`));
    monitor.stop();
    expect(writes).toEqual([]);
  });

  it('records every routine of a reconcile larger than one recording chunk, and removes them all again', async () => {
    const n = 1_500; // more than the 1 000 fingerprints recorded per fenced write
    const defs = Array.from({ length: n }, (_, i) => routine(`big-${i}`, { kind: 'interval', everyMs: 86_400_000 }));
    await routines.createMany(defs, 'api', clock.now());
    expect((await reconciler.reconcileAll(lead, isCurrent)).upserted).toHaveLength(n);
    expect(await conns.command.hlen(reconciler.writtenKey)).toBe(n);
    expect(await conns.command.zcard(fires.keys.repeat!)).toBe(n);
    expect(await reconciler.reconcileAll(lead, isCurrent)).toEqual({
      upserted: [],
      later: [],
      removed: [],
      unchanged: n,
    });
    for (const d of defs) await routines.remove(d.name);
    expect((await reconciler.reconcileAll(lead, isCurrent)).removed).toHaveLength(n);
    expect(await conns.command.hlen(reconciler.writtenKey)).toBe(0);
    expect(await conns.command.zcard(fires.keys.repeat!)).toBe(0);
  });

  it('re-writes only the routine whose trigger changed and removes paused and deleted ones', async () => {
    const now = clock.now();
    await routines.upsert(routine('a', { kind: 'interval', everyMs: 60_000 }), 'api', now);
    await routines.upsert(routine('b', { kind: 'interval', everyMs: 60_000 }), 'api', now);
    await routines.upsert(routine('c', { kind: 'interval', everyMs: 60_000 }), 'api', now);
    await reconciler.reconcileAll(lead, isCurrent);
    await routines.upsert(routine('a', { kind: 'interval', everyMs: 30_000 }), 'api', now);
    await routines.upsert(routine('b', { kind: 'interval', everyMs: 60_000 }, { payload: { x: 1 } }), 'api', now);
    await routines.setStatus('c', 'paused', now);
    const report = await reconciler.reconcileAll(lead, isCurrent);
    expect(report).toEqual({ upserted: ['a'], later: [], removed: ['c'], unchanged: 1 });
    expect((await fires.getJobSchedulers()).map((s) => s.key).sort()).toEqual(['a', 'b']);
    expect((await fires.getJobScheduler('a'))!.every).toBe(30_000);
  });

  it('arms a once routine with a delayed fire and disarms it when removed', async () => {
    const at = new Date(clock.now() + 3_600_000).toISOString();
    await routines.upsert(routine('once-x', { kind: 'once', at }), 'api', clock.now());
    await reconciler.reconcileAll(lead, isCurrent);
    const job = await fires.getJob(`once-once-x-${Date.parse(at)}`);
    expect(job).toBeDefined();
    expect(await job!.getState()).toBe('delayed');
    await routines.remove('once-x');
    expect((await reconciler.reconcileAll(lead, isCurrent)).removed).toEqual(['once-x']);
    expect(await fires.getJob(`once-once-x-${Date.parse(at)}`)).toBeUndefined();
  });

  it('refuses every write of a leader that lost its lease to another, even one that does not know it yet', async () => {
    await routines.upsert(routine('z', { kind: 'interval', everyMs: 60_000 }), 'api', clock.now());
    // A real leader whose lease runs out while it is cut off from Redis: another instance takes over.
    const oldConnection = conns.open('command', 'old');
    const old = new LeaderElector(oldConnection, keys, { instanceId: 'old', leaseMs: 300 });
    await elector.stop();
    old.start();
    const oldLead = await old.waitForLeadership();
    oldConnection.disconnect(); // no renewal reaches Redis any more, and no release either
    const successor = new LeaderElector(conns.open('command', 'new'), keys, { instanceId: 'new', leaseMs: 5000 });
    successor.start();
    const newLead = await successor.waitForLeadership();
    expect(newLead.epoch).toBeGreaterThan(oldLead.epoch);
    // The old leader acts on its stale belief (its own isCurrent says yes): the fence refuses its
    // bookkeeping. (BullMQ's own upsert cannot be fenced: that one write may slip in, see
    // docs/scheduler.md; the current leader's reconcile owns the result.)
    await expect(reconciler.reconcileAll(oldLead, () => true)).rejects.toBeInstanceOf(StaleLeaderError);
    expect(await conns.command.hget(reconciler.writtenKey, 'z')).toBeNull();
    const isNew = () => successor.leadership?.token === newLead.token;
    expect((await reconciler.reconcileAll(newLead, isNew)).upserted).toEqual(['z']);
    expect(await conns.command.hget(reconciler.writtenKey, 'z')).not.toBeNull();
    expect(await conns.command.zcard(fires.keys.repeat!)).toBe(1);
    await successor.stop();
    await old.stop();
  });

  it('a new leader reconciles nothing when nothing changed, the changes when some did, everything when it cannot know', async () => {
    const now = clock.now();
    await routines.upsert(routine('a', { kind: 'interval', everyMs: 60_000 }), 'api', now);
    // No complete reconcile recorded yet (an upgrade): everything.
    expect(await reconciler.onElection(lead, isCurrent)).toBe('full');
    await reconciler.reconcileAll(lead, isCurrent);
    expect(await reconciler.onElection(lead, isCurrent)).toBe('none');
    // A change logged since: only it is reconciled.
    await routines.upsert(routine('b', { kind: 'interval', everyMs: 60_000 }), 'api', now);
    expect(await reconciler.onElection(lead, isCurrent)).toBe('changes');
    expect((await fires.getJobSchedulers()).map((s) => s.key).sort()).toEqual(['a', 'b']);
    expect(await reconciler.onElection(lead, isCurrent)).toBe('none');
    expect(await reconciler.reconcileChanged(lead, isCurrent)).toBe(true);
    // The watchdog's index short of a routine (partial data): everything.
    await conns.command.zrem(keys.routineDue(), 'a');
    expect(await reconciler.onElection(lead, isCurrent)).toBe('full');
  });
});
