import { parseBundle, type Routine } from '@drover/core';
import { SystemClock } from '@drover/redis';
import type { RoutineStore } from '@drover/store';
import { RedisMonitor } from '@drover/testing';
import type { FiresQueue } from '../fires/fires-queue.provider';
import type { Leadership } from '../leadership/leader-elector';
import { startReconcilerHarness, type ReconcilerHarness } from '../testing/reconciler-harness';
import type { Reconciler } from './reconciler.service';

function routine(name: string, when: Record<string, unknown>): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name, jobType: 'noop', queue: 'default', ...when }],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

const weekdays = { kind: 'cron', cron: '0 9 * * 1-5', tz: 'Europe/Berlin', name: 'weekdays' };
const weekends = { kind: 'cron', cron: '0 12 * * 6,0' };
const hourly = { kind: 'interval', everyMs: 3_600_000, name: 'hourly' };

describe('Reconciler: a routine with several triggers (real Redis and BullMQ)', () => {
  let h: ReconcilerHarness;
  let fires: FiresQueue;
  let reconciler: Reconciler;
  let routines: RoutineStore;
  let lead: Leadership;
  let isCurrent: () => boolean;
  const clock = new SystemClock();

  beforeEach(async () => {
    h = await startReconcilerHarness('rtr');
    ({ fires, reconciler, routines, lead, isCurrent } = h);
  });

  afterEach(() => h.stop());

  const schedulers = async () =>
    (await fires.getJobSchedulers())
      .map((s) => [s.key, s.pattern ?? s.every, s.template?.data])
      .sort((a, b) => (a[0]! < b[0]! ? -1 : 1));

  /** The BullMQ and bookkeeping writes `fn` makes, as MONITOR sees them. */
  async function writesOf(fn: () => Promise<unknown>): Promise<string[]> {
    const monitor = await RedisMonitor.start();
    await fn();
    // Only this test's keys: test files run side by side on the same Redis.
    const writes = (await monitor.commands())
      .filter((args) => /^(evalsha|eval|hset|zadd|zrem|del|set)$/.test(args[0] ?? ''))
      .map((args) => args.join(' '))
      .filter((line) => line.includes(`${h.keys.prefix}:`));
    monitor.stop();
    return writes;
  }

  it('keeps one Job Scheduler per trigger, each firing the routine, and writes nothing on an unchanged restart', async () => {
    await routines.upsert(routine('office', { triggers: [weekdays, weekends] }), 'api', clock.now());
    expect((await reconciler.reconcileAll(lead, isCurrent)).upserted).toEqual(['office']);
    expect(await schedulers()).toEqual([
      ['office', '0 9 * * 1-5', { routine: 'office' }],
      ['office#1', '0 12 * * 6,0', { routine: 'office' }],
    ]);
    expect((await fires.getJobScheduler('office'))!.tz).toBe('Europe/Berlin');
    const writes = await writesOf(() => reconciler.reconcileAll(lead, isCurrent));
    expect(writes).toEqual([]);
    expect(await reconciler.reconcileAll(lead, isCurrent)).toEqual({
      upserted: [],
      later: [],
      removed: [],
      unchanged: 1,
    });
  });

  it('on an edit writes only the schedulers whose trigger changed, and removes those of triggers no longer listed', async () => {
    await routines.upsert(routine('office', { triggers: [weekdays, weekends] }), 'api', clock.now());
    await reconciler.reconcileAll(lead, isCurrent);
    // A third trigger: only its scheduler is written (the two others keep their pending fire).
    await routines.upsert(routine('office', { triggers: [weekdays, weekends, hourly] }), 'api', clock.now());
    const added = await writesOf(() => reconciler.reconcileOne('office', lead, isCurrent));
    const upserted = added.filter((w) => /^zadd \S+:_fires:repeat /i.test(w)).map((w) => w.split(' ').pop());
    expect(upserted).toEqual(['office#2']);
    expect((await schedulers()).map((s) => s[0])).toEqual(['office', 'office#1', 'office#2']);
    // Back to one trigger: the list's other schedulers go, the first is rewritten in place.
    await routines.upsert(routine('office', { trigger: weekends }), 'api', clock.now());
    await reconciler.reconcileOne('office', lead, isCurrent);
    expect(await schedulers()).toEqual([['office', '0 12 * * 6,0', { routine: 'office' }]]);
    // A list again, then manual: nothing is left.
    await routines.upsert(routine('office', { triggers: [hourly, weekdays] }), 'api', clock.now());
    await reconciler.reconcileOne('office', lead, isCurrent);
    expect((await schedulers()).map((s) => s[0])).toEqual(['office', 'office#1']);
    await routines.upsert(routine('office', { trigger: { kind: 'manual' } }), 'api', clock.now());
    await reconciler.reconcileOne('office', lead, isCurrent);
    expect(await schedulers()).toEqual([]);
  });

  it('a full pass removes a trigger’s scheduler its routine no longer lists (an orphan), and keeps the rest', async () => {
    await routines.upsert(routine('office', { triggers: [weekdays, weekends] }), 'api', clock.now());
    await reconciler.reconcileAll(lead, isCurrent);
    await fires.upsertJobScheduler('office#5', { every: 60_000 }, { name: 'fire', data: { routine: 'office' } });
    const report = await reconciler.reconcileAll(lead, isCurrent);
    expect(report.removed).toEqual(['office#5']);
    expect((await schedulers()).map((s) => s[0])).toEqual(['office', 'office#1']);
  });

  it('removes every scheduler of a paused list routine', async () => {
    await routines.upsert(routine('office', { triggers: [weekdays, weekends, hourly] }), 'api', clock.now());
    await reconciler.reconcileAll(lead, isCurrent);
    await routines.setStatus('office', 'paused', clock.now());
    expect((await reconciler.reconcileAll(lead, isCurrent)).removed).toEqual(['office']);
    expect(await schedulers()).toEqual([]);
  });
});
