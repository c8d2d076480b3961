import { nextFire, parseBundle, type Routine } from '@drover/core';
import { StaleLeaderError } from '@drover/redis';
import { ManualClock, RedisMonitor } from '@drover/testing';
import { startReconcilerHarness, type ReconcilerHarness } from '../testing/reconciler-harness';

const MIN = 60_000;
const HOUR = 60 * MIN;

function routine(name: string, when: Record<string, unknown>, extra: Record<string, unknown> = {}): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name, jobType: 'noop', queue: 'default', ...when, ...extra }],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

/** A daily cron (UTC) whose slot is `hoursAhead` whole hours after the current hour. */
function dailyAt(hoursAhead: number, minute = 0): { kind: 'cron'; cron: string; tz: string } {
  const hour = (new Date().getUTCHours() + hoursAhead) % 24;
  return { kind: 'cron', cron: `${minute} ${hour} * * *`, tz: 'UTC' };
}

/**
 * The schedule horizon (an hour here, as deployed): a routine whose first slot is further off gets
 * no Job Scheduler when it is written, only an entry in `{core}:schedules-later`; the leader's
 * `writeDue` writes it once the horizon reaches that slot. Real Redis and BullMQ; the reconciler's
 * clock is a manual one, so "later" is reached without waiting (BullMQ's own clock is the real one,
 * which is why the slots are hours ahead of both).
 */
describe('Reconciler: schedules beyond the horizon are written later (real Redis and BullMQ)', () => {
  let h: ReconcilerHarness;
  let clock: ManualClock;

  beforeEach(async () => {
    clock = new ManualClock(Date.now());
    h = await startReconcilerHarness('rlater', 30_000, HOUR, clock);
  });

  afterEach(() => h.stop());

  const laterKey = () => h.keys.schedulesLater();
  const laterAt = async (name: string) => {
    const score = await h.conns.command.zscore(laterKey(), name);
    return score === null ? null : Number(score);
  };
  const schedulerKeys = async () => (await h.fires.getJobSchedulers()).map((s) => s.key).sort();

  it('enters a routine whose first slot is beyond the horizon for later, with no Job Scheduler, and writes nothing on the next reconcile', async () => {
    const far = routine('far', { trigger: dailyAt(5) });
    await h.routines.upsert(far, 'api', clock.now());
    await h.routines.upsert(routine('near', { trigger: { kind: 'interval', everyMs: 10 * MIN } }), 'api', clock.now());
    const report = await h.reconciler.reconcileAll(h.lead, h.isCurrent);
    expect([report.upserted, report.later]).toEqual([['near'], ['far']]);
    expect(await schedulerKeys()).toEqual(['near']);
    const slot = nextFire(far, clock.now())!;
    expect(await laterAt('far')).toBe(slot - HOUR);
    // Its fingerprint is recorded: the routine is reconciled, only its BullMQ writes wait.
    expect(await h.conns.command.hget(h.reconciler.writtenKey, 'far')).not.toBeNull();

    const monitor = await RedisMonitor.start();
    const again = await h.reconciler.reconcileAll(h.lead, h.isCurrent);
    const writes = (await monitor.commands())
      .filter((args) => /^(evalsha|eval|hset|zadd|zrem|del|set)$/.test(args[0] ?? ''))
      .map((args) => args.join(' '))
      .filter((line) => line.includes(`${h.keys.prefix}:`));
    monitor.stop();
    expect(again).toEqual({ upserted: [], later: [], removed: [], unchanged: 2 });
    expect(writes).toEqual([]);
  });

  it('writes its Job Scheduler once the horizon reaches its first slot, and takes it off the list', async () => {
    const trigger = dailyAt(5, 30);
    const far = routine('far', { trigger });
    await h.routines.upsert(far, 'api', clock.now());
    await h.reconciler.reconcileAll(h.lead, h.isCurrent);
    const slot = nextFire(far, clock.now())!;
    expect(await h.reconciler.writeDue(h.lead, h.isCurrent)).toEqual([]);
    clock.t = slot - HOUR - 1;
    expect(await h.reconciler.writeDue(h.lead, h.isCurrent)).toEqual([]);
    clock.t = slot - HOUR;
    expect(await h.reconciler.writeDue(h.lead, h.isCurrent)).toEqual(['far']);
    const js = await h.fires.getJobScheduler('far');
    expect([js?.pattern, js?.next]).toEqual([trigger.cron, slot]);
    expect(await laterAt('far')).toBeNull();
    expect(await h.reconciler.writeDue(h.lead, h.isCurrent)).toEqual([]);
    // Written now, it is an unchanged routine like any other.
    expect((await h.reconciler.reconcileAll(h.lead, h.isCurrent)).unchanged).toBe(1);
  });

  it('writes an entry whose fingerprint was never recorded (a leader gone between the two writes) and takes it off the list', async () => {
    const far = routine('far', { trigger: dailyAt(5) });
    await h.routines.upsert(far, 'api', clock.now());
    await h.reconciler.reconcileAll(h.lead, h.isCurrent);
    await h.conns.command.hdel(h.reconciler.writtenKey, 'far');
    clock.t = nextFire(far, clock.now())! - HOUR;
    expect(await h.reconciler.writeDue(h.lead, h.isCurrent)).toEqual(['far']);
    expect(await schedulerKeys()).toEqual(['far']);
    expect(await laterAt('far')).toBeNull();
    expect(await h.conns.command.hget(h.reconciler.writtenKey, 'far')).not.toBeNull();
  });

  it('writes every trigger of a routine left for later once a change brings one within the horizon', async () => {
    const a = { ...dailyAt(5), name: 'a' };
    await h.routines.upsert(routine('pair', { triggers: [a, { ...dailyAt(6), name: 'b' }] }), 'api', clock.now());
    expect((await h.reconciler.reconcileAll(h.lead, h.isCurrent)).later).toEqual(['pair']);
    // Only the second trigger changes: the first, unchanged, was never in BullMQ either.
    const soon = { kind: 'interval', everyMs: 10 * MIN, name: 'b' };
    await h.routines.upsert(routine('pair', { triggers: [a, soon] }), 'api', clock.now() + 1);
    await h.reconciler.reconcileOne('pair', h.lead, h.isCurrent);
    expect(await schedulerKeys()).toEqual(['pair', 'pair#1']);
    expect(await laterAt('pair')).toBeNull();
  });

  it('takes the Job Schedulers of a routine changed to fire beyond the horizon out of BullMQ', async () => {
    await h.routines.upsert(routine('moved', { trigger: { kind: 'interval', everyMs: 10 * MIN } }), 'api', clock.now());
    await h.reconciler.reconcileAll(h.lead, h.isCurrent);
    expect(await schedulerKeys()).toEqual(['moved']);
    const far = routine('moved', { trigger: dailyAt(7) });
    await h.routines.upsert(far, 'api', clock.now() + 1);
    await h.reconciler.reconcileOne('moved', h.lead, h.isCurrent);
    expect(await schedulerKeys()).toEqual([]);
    expect(await laterAt('moved')).toBe(nextFire(far, clock.now())! - HOUR);
  });

  it('drops the entry of a routine deleted, paused or gone while it waits', async () => {
    for (const name of ['deleted', 'paused', 'kept'])
      await h.routines.upsert(routine(name, { trigger: dailyAt(5) }), 'api', clock.now());
    await h.reconciler.reconcileAll(h.lead, h.isCurrent);
    await h.routines.remove('deleted');
    await h.routines.setStatus('paused', 'paused', clock.now());
    const report = await h.reconciler.reconcileAll(h.lead, h.isCurrent);
    expect(report.removed.sort()).toEqual(['deleted', 'paused']);
    expect(await h.conns.command.zrange(laterKey(), '0', '-1')).toEqual(['kept']);
    // An entry whose routine is neither in the store nor written (a leftover) is dropped when due.
    await h.conns.command.zadd(laterKey(), 0, 'ghost');
    expect(await h.reconciler.writeDue(h.lead, h.isCurrent)).toEqual(['ghost']);
    expect(await h.conns.command.zrange(laterKey(), '0', '-1')).toEqual(['kept']);
    expect(await schedulerKeys()).toEqual([]);
  });

  it('forgets the fingerprint and the entry of a routine deleted while it waits, when it comes due', async () => {
    const far = routine('gone', { trigger: dailyAt(5) });
    await h.routines.upsert(far, 'api', clock.now());
    await h.reconciler.reconcileAll(h.lead, h.isCurrent);
    await h.routines.remove('gone');
    clock.t = nextFire(far, clock.now())! - HOUR;
    expect(await h.reconciler.writeDue(h.lead, h.isCurrent)).toEqual(['gone']);
    expect(await h.conns.command.hget(h.reconciler.writtenKey, 'gone')).toBeNull();
    expect(await laterAt('gone')).toBeNull();
  });

  it('drops the entry of a routine whose endAt passed while it waited, writing nothing', async () => {
    const trigger = dailyAt(5);
    const slot = nextFire(trigger, clock.now())!;
    const ended = routine('ended', { trigger, endAt: new Date(slot + 30 * MIN).toISOString() });
    await h.routines.upsert(ended, 'api', clock.now());
    await h.reconciler.reconcileAll(h.lead, h.isCurrent);
    expect(await laterAt('ended')).toBe(slot - HOUR);
    clock.t = slot + HOUR; // its one slot and its end both passed (a leader away that long)
    expect(await h.reconciler.writeDue(h.lead, h.isCurrent)).toEqual(['ended']);
    expect(await laterAt('ended')).toBeNull();
    expect(await schedulerKeys()).toEqual([]);
    expect(await h.reconciler.writeDue(h.lead, h.isCurrent)).toEqual([]);
  });

  it('tries a routine whose write fails again a minute on, without holding up the others due with it', async () => {
    const bad = routine('bad', { trigger: dailyAt(5) });
    await h.routines.upsert(bad, 'api', clock.now());
    await h.routines.upsert(routine('good', { trigger: dailyAt(5) }), 'api', clock.now());
    await h.reconciler.reconcileAll(h.lead, h.isCurrent);
    const upsert = h.fires.upsertJobScheduler.bind(h.fires);
    const refused = jest
      .spyOn(h.fires, 'upsertJobScheduler')
      .mockImplementation((id, ...rest) =>
        id === 'bad' ? Promise.reject(new Error('refused for the test')) : upsert(id, ...rest),
      );
    clock.t = nextFire(bad, clock.now())! - HOUR;
    expect((await h.reconciler.writeDue(h.lead, h.isCurrent)).sort()).toEqual(['bad', 'good']);
    expect(await schedulerKeys()).toEqual(['good']);
    expect(await laterAt('bad')).toBe(clock.t + MIN);
    expect(await h.reconciler.writeDue(h.lead, h.isCurrent)).toEqual([]);
    refused.mockRestore();
    clock.t += MIN;
    expect(await h.reconciler.writeDue(h.lead, h.isCurrent)).toEqual(['bad']);
    expect(await schedulerKeys()).toEqual(['bad', 'good']);
    expect(await laterAt('bad')).toBeNull();
  });

  it('keeps the entry of a waiting routine whose change cannot be written to BullMQ', async () => {
    await h.routines.upsert(routine('stuck', { trigger: dailyAt(5) }), 'api', clock.now());
    await h.reconciler.reconcileAll(h.lead, h.isCurrent);
    const entry = await laterAt('stuck');
    await h.routines.upsert(
      routine('stuck', { trigger: { kind: 'interval', everyMs: 10 * MIN } }),
      'api',
      clock.now() + 1,
    );
    const refused = jest.spyOn(h.fires, 'upsertJobScheduler').mockRejectedValue(new Error('refused for the test'));
    await expect(h.reconciler.reconcileOne('stuck', h.lead, h.isCurrent)).rejects.toThrow('refused for the test');
    refused.mockRestore();
    // Still waiting: the routine is not left with neither schedulers nor an entry.
    expect(await laterAt('stuck')).toBe(entry);
    await h.reconciler.reconcileOne('stuck', h.lead, h.isCurrent);
    expect(await schedulerKeys()).toEqual(['stuck']);
    expect(await laterAt('stuck')).toBeNull();
  });

  it('enters more routines than one recording chunk, and removes them all again', async () => {
    const n = 1_500; // more than the 1 000 entries written per fenced write
    const defs = Array.from({ length: n }, (_, i) => routine(`big-${i}`, { trigger: dailyAt(5 + (i % 3), i % 60) }));
    await h.routines.createMany(defs, 'api', clock.now());
    expect((await h.reconciler.reconcileAll(h.lead, h.isCurrent)).later).toHaveLength(n);
    expect(await h.conns.command.zcard(laterKey())).toBe(n);
    expect(await h.conns.command.hlen(h.reconciler.writtenKey)).toBe(n);
    expect(await h.conns.command.zcard(h.fires.keys.repeat!)).toBe(0);
    for (const d of defs) await h.routines.remove(d.name);
    expect((await h.reconciler.reconcileAll(h.lead, h.isCurrent)).removed).toHaveLength(n);
    expect(await h.conns.command.zcard(laterKey())).toBe(0);
  });

  it("refuses a stale leader's entries", async () => {
    await h.routines.upsert(routine('far', { trigger: dailyAt(5) }), 'api', clock.now());
    // A leadership of another instance, from before the harness's.
    const stale = { ...h.lead, token: `other|x|${h.lead.epoch - 1}` };
    await expect(h.reconciler.reconcileAll(stale, () => true)).rejects.toBeInstanceOf(StaleLeaderError);
    expect(await laterAt('far')).toBeNull();
    expect(await h.conns.command.hget(h.reconciler.writtenKey, 'far')).toBeNull();
  });
});
