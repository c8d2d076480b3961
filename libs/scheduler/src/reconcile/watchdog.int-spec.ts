import pino from 'pino';
import { parseBundle, type Routine } from '@drover/core';
import { FIRES_QUEUE, repairFireJobId } from '@drover/store';
import { DEFAULT_SCHEDULER_OPTIONS } from '../scheduler-options';
import { dispatcherHarness } from '../testing/dispatcher-harness';
import { Watchdog } from './watchdog.service';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const MIN = 60_000;

function routine(name: string, extra: Record<string, unknown> = {}): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name, jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: MIN }, ...extra }],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

describe("the leader's watchdog pass (real Redis, stored state only)", () => {
  let h: Awaited<ReturnType<typeof dispatcherHarness>>;
  let watchdog: Watchdog;
  const lead = { epoch: 1, token: 'sched-1|n1|1' };
  const isCurrent = () => true;

  beforeEach(async () => {
    h = await dispatcherHarness([{ name: 'default' }], T0);
    await h.conns.command.set(h.keys.leader(), lead.token);
    watchdog = new Watchdog(
      h.routines,
      h.index,
      h.disarmer,
      h.bull,
      h.clock,
      h.metrics,
      DEFAULT_SCHEDULER_OPTIONS,
      pino({ level: 'silent' }),
    );
  });

  afterEach(async () => {
    await h.close();
  });

  it('resumes a routine whose pause has ended, and only then', async () => {
    await h.routines.upsert(routine('nap'), 'api', T0);
    await h.routines.pause('nap', { at: T0, by: 'alice', note: 'deploy', until: T0 + 10 * MIN }, T0);
    h.clock.t = T0 + 10 * MIN - 1;
    await watchdog.pass(lead, isCurrent);
    expect(await h.routines.get('nap')).toMatchObject({ def: { status: 'paused' }, pause: { note: 'deploy' } });
    h.clock.t = T0 + 10 * MIN;
    await watchdog.pass(lead, isCurrent);
    const resumed = await h.routines.get('nap');
    expect(resumed!.def.status).toBe('active');
    expect(resumed!.pause).toBeUndefined();
    // The slots it slept through are not caught up.
    expect((await h.routines.getState('nap')).lastSlot).toBe(T0 + 10 * MIN);
  });

  it('does not resume for a leader whose lease is no longer current', async () => {
    await h.routines.upsert(routine('nap'), 'api', T0);
    await h.routines.pause('nap', { at: T0, until: T0 + MIN }, T0);
    h.clock.t = T0 + 2 * MIN;
    await expect(watchdog.pass({ epoch: 0, token: 'old|n0|0' }, isCurrent)).rejects.toThrow(/stale leader/);
    expect((await h.routines.get('nap'))!.def.status).toBe('paused');
  });

  it('asks the schedulers to dispatch an overdue routine instead of dispatching on the leader', async () => {
    await h.routines.upsert(routine('late'), 'api', T0);
    h.clock.t = T0 + 3 * MIN;
    expect(await watchdog.pass(lead, isCurrent)).toEqual(['late']);
    expect(await h.bull.get(FIRES_QUEUE).getJob(repairFireJobId('late', T0 + MIN))).toBeDefined();
    // Nothing was dispatched here: no run exists yet.
    expect(await h.bull.get('default').getJobCounts('wait', 'delayed')).toEqual({ wait: 0, delayed: 0 });
  });

  it('withdraws runs armed for a version the routine no longer has, and refires their slots', async () => {
    await h.routines.upsert(routine('edited'), 'api', T0);
    h.clock.t = T0 + MIN;
    await h.dispatcher.dispatch('edited', { slot: T0 + MIN });
    expect((await h.routines.getState('edited')).armed).toHaveLength(2);
    // An edit whose change message nobody received (no leader subscribed here).
    await h.routines.upsert(routine('edited', { payload: { v: 2 } }), 'api', T0 + MIN + 1);
    await watchdog.pass(lead, isCurrent);
    expect((await h.routines.getState('edited')).armed).toEqual([]);
    expect(await h.bull.get('default').getDelayedCount()).toBe(0);
    expect(await h.bull.get(FIRES_QUEUE).getDelayedCount()).toBe(2);
  });

  it('keeps each expected slot only while the cursor and the trigger stay: a later lost fire is still found', async () => {
    await h.routines.upsert(routine('kept'), 'api', T0);
    h.clock.t = T0 + MIN + 1_000;
    expect(await watchdog.pass(lead, isCurrent)).toEqual([]);
    // The slot is handled (the cursor moves); the next one is then lost.
    await h.routines.advanceCursor('kept', T0 + MIN);
    h.clock.t = T0 + 2 * MIN + 10_000;
    expect(await watchdog.pass(lead, isCurrent)).toEqual(['kept']);
    expect(await h.bull.get(FIRES_QUEUE).getJob(repairFireJobId('kept', T0 + 2 * MIN))).toBeDefined();
    // A new trigger (a new version) is looked at anew: every 5 minutes, next due at T0 + 5 min.
    await h.routines.upsert(routine('kept', { trigger: { kind: 'interval', everyMs: 5 * MIN } }), 'api', h.clock.t);
    expect(await watchdog.pass(lead, isCurrent)).toEqual([]);
    h.clock.t = T0 + 5 * MIN + 10_000;
    expect(await watchdog.pass(lead, isCurrent)).toEqual(['kept']);
  });

  it('reads only the routines whose entry is due: a fire that moved the cursor moves the entry past now', async () => {
    await h.routines.upsert(routine('firing'), 'api', T0);
    await h.routines.upsert(routine('lost'), 'api', T0);
    h.clock.t = T0 + 1_000;
    await watchdog.pass(lead, isCurrent);
    expect(await h.index.due(h.clock.t)).toEqual([]);
    // 'firing' is dispatched (its claims move its entry past its armed slots); 'lost' never is.
    h.clock.t = T0 + MIN;
    await h.dispatcher.dispatch('firing', { slot: T0 + MIN });
    expect(await h.index.entry('firing')).toBe(T0 + 4 * MIN);
    h.clock.t = T0 + MIN + 10_000;
    expect((await h.index.due(h.clock.t - DEFAULT_SCHEDULER_OPTIONS.watchdogToleranceMs)).map((e) => e.name)).toEqual([
      'lost',
    ]);
    expect(await watchdog.pass(lead, isCurrent)).toEqual(['lost']);
  });

  it('a rebuild restores a missing index and corrects an entry later than the next slot', async () => {
    await h.routines.upsert(routine('a'), 'api', T0);
    await h.routines.upsert(routine('b'), 'api', T0);
    await h.routines.pause('b', { at: T0 }, T0);
    await h.routines.upsert(routine('c'), 'api', T0);
    await h.routines.upsert(routine('d'), 'api', T0);
    await h.routines.advanceCursor('d', undefined, { consecutiveFailures: 5, disabledReason: 'launch failed 5 times' });
    await h.conns.command.del(h.keys.routineDue(), h.keys.routineCounts());
    // A leftover of a routine that no longer exists, and an entry far too late.
    await h.conns.command.zadd(h.keys.routineDue(), 5, 'gone', 9e15, 'c');
    const records = await h.routines.list();
    await watchdog.rebuild(lead, { records, states: await h.routines.getStates(records.map((r) => r.def.name)) });
    expect(await h.index.entry('a')).toBe(T0 + MIN);
    expect(await h.index.entry('b')).toBe(Infinity);
    expect(await h.index.entry('c')).toBe(T0 + MIN);
    expect(await h.index.entry('gone')).toBeUndefined();
    expect(await h.index.entry('d')).toBe(Infinity);
    // The disabled routine is counted as disabled, not also as active.
    expect(await h.index.counts()).toEqual(
      new Map([
        ['active', 2],
        ['paused', 1],
        ['archived', 0],
        ['disabled', 1],
      ]),
    );
    h.clock.t = T0 + MIN + 10_000;
    expect((await watchdog.pass(lead, isCurrent)).sort()).toEqual(['a', 'c']);
    const gauge = await h.metrics.routines.get();
    expect(Object.fromEntries(gauge.values.map((v) => [v.labels.status, v.value]))).toEqual({
      active: 2,
      paused: 1,
      archived: 0,
      disabled: 1,
    });
  });
});
