import { parseBundle, type Routine } from '@drover/core';
import { StaleLeaderError, type DroverKeys, type RedisClient } from '@drover/redis';
import { testStores } from '@drover/testing';
import type { SlotClaims } from '../slots/slot-claims.store';
import { CHANGE_LOG_SIZE } from './routine-bulk';
import type { RoutineIndex } from './routine-index';
import type { RoutineStore } from './routine.store';

const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
const MIN = 60_000;
const TOKEN = 'sched-1|n1|1';

function routine(name: string, extra: Record<string, unknown> = {}): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name, jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: MIN }, ...extra }],
  });
  if (!res.ok) throw new Error(res.errors.join());
  return res.bundle.routines[0]!;
}

/**
 * Every write that moves a routine's cursor or changes what the leader acts on keeps the watchdog's
 * index, the change count and the change log in the same step (real Redis, the scripts themselves).
 * The index's one promise: an entry is never later than the routine's next slot.
 */
describe("the watchdog's index and the change log, kept by every write (real Redis)", () => {
  let stores: ReturnType<typeof testStores>;
  let keys: DroverKeys;
  let redis: RedisClient;
  let routines: RoutineStore;
  let index: RoutineIndex;
  let claims: SlotClaims;

  beforeEach(async () => {
    stores = testStores('index');
    ({ keys, routines, routineIndex: index, claims } = stores);
    redis = stores.connections.command;
    await stores.registry.put([{ name: 'default' }]);
    await redis.set(keys.leader(), TOKEN);
  });

  afterEach(async () => {
    await stores.close();
  });

  /** Puts the entry somewhere far, as a leader's look would, so the next write is seen to move it. */
  const park = (name: string) => redis.zadd(keys.routineDue(), 9e15, name);
  const claim = (slot: number, version: number, next: number | undefined) =>
    claims.claim({
      routine: 'a',
      slot,
      decision: { kind: 'fire', source: 'schedule', cancel: [], at: T0 },
      now: T0,
      next: { version, slot: next },
    });

  it('a creation enters the routine at 0, counts it as active and logs the change', async () => {
    await routines.upsert(routine('a'), 'api', T0);
    expect(await index.entry('a')).toBe(0);
    expect(await index.seq()).toBe(1);
    expect(await index.changedSince(0)).toEqual({ seq: 1, names: ['a'] });
    expect(await index.counts()).toEqual(new Map([['active', 1]]));
  });

  it('an edit, a pause and a resume each put the entry back at 0 and log a change; the counts follow the status', async () => {
    await routines.upsert(routine('a'), 'api', T0);
    await park('a');
    await routines.upsert(routine('a', { payload: { x: 1 } }), 'api', T0 + 1);
    expect(await index.entry('a')).toBe(0);
    await park('a');
    await routines.pause('a', { at: T0 + 2 }, T0 + 2);
    expect(await index.entry('a')).toBe(0);
    expect(await index.counts()).toEqual(
      new Map([
        ['active', 0],
        ['paused', 1],
      ]),
    );
    await park('a');
    await routines.resume('a', T0 + 3);
    expect(await index.entry('a')).toBe(0);
    expect(await index.counts()).toEqual(
      new Map([
        ['active', 1],
        ['paused', 0],
      ]),
    );
    expect(await index.changedSince(1)).toEqual({ seq: 4, names: ['a'] });
  });

  it('a delete removes the entry, uncounts the routine and logs the change', async () => {
    await routines.upsert(routine('a'), 'api', T0);
    await routines.remove('a');
    expect(await index.entry('a')).toBeUndefined();
    expect(await index.counts()).toEqual(new Map([['active', 0]]));
    expect(await index.changedSince(1)).toEqual({ seq: 2, names: ['a'] });
  });

  it('a claim that moves the cursor moves the entry to the next slot, for the current version only', async () => {
    await routines.upsert(routine('a'), 'api', T0);
    expect((await claim(T0 + MIN, 1, T0 + 2 * MIN)).kind).toBe('claimed');
    expect(await index.entry('a')).toBe(T0 + 2 * MIN);
    // A dispatcher that read an older definition: the edit's 0 stays for the leader to compute.
    await routines.upsert(routine('a', { payload: { x: 1 } }), 'api', T0);
    expect((await claim(T0 + 2 * MIN, 1, T0 + 3 * MIN)).kind).toBe('claimed');
    expect(await index.entry('a')).toBe(0);
    // A claim behind the cursor moves nothing; a one-shot's last slot leaves no next one.
    await claim(T0 + 3 * MIN, 2, T0 + 4 * MIN);
    await claim(T0 + 2 * MIN + 1, 2, T0 + 9 * MIN);
    expect(await index.entry('a')).toBe(T0 + 4 * MIN);
    await claim(T0 + 5 * MIN, 2, undefined);
    expect(await index.entry('a')).toBe(Infinity);
    // Claims are no change for the reconciler.
    expect(await index.seq()).toBe(2);
  });

  it("a dispatch's cursor moves the entry; a routine disabled (or enabled) by its launcher is logged as changed", async () => {
    await routines.upsert(routine('a'), 'api', T0);
    await routines.advanceCursor('a', T0 + MIN, { lastRunId: 'x' }, { version: 1, slot: T0 + 2 * MIN });
    expect(await index.entry('a')).toBe(T0 + 2 * MIN);
    expect(await index.seq()).toBe(1);
    await routines.advanceCursor('a', undefined, { disabledReason: 'launch failed 3 times' });
    expect(await index.changedSince(1)).toEqual({ seq: 2, names: ['a'] });
    await routines.advanceCursor('a', undefined, { disabledReason: 'launch failed 3 times' });
    expect(await index.seq()).toBe(2);
  });

  it('an active routine its launcher disabled is counted as disabled only, through edits, pauses, an enable and a delete', async () => {
    const counts = async () => Object.fromEntries([...(await index.counts())].filter(([, n]) => n !== 0));
    await routines.upsert(routine('a'), 'api', T0);
    await routines.upsert(routine('b'), 'api', T0);
    await routines.advanceCursor('a', undefined, { consecutiveFailures: 5, disabledReason: 'launch failed 5 times' });
    expect(await counts()).toEqual({ active: 1, disabled: 1 });
    await routines.advanceCursor('a', undefined, { disabledReason: 'launch failed 5 times', lastLaunchError: 'x' });
    expect(await counts()).toEqual({ active: 1, disabled: 1 });
    await routines.upsert(routine('a', { payload: { edited: true } }), 'api', T0 + 1);
    expect(await counts()).toEqual({ active: 1, disabled: 1 });
    await routines.pause('a', { at: T0 + 2 }, T0 + 2);
    expect(await counts()).toEqual({ active: 1, paused: 1 });
    await routines.resume('a', T0 + 3);
    expect(await counts()).toEqual({ active: 1, disabled: 1 });

    await park('a');
    const seq = await index.seq();
    expect(await routines.enable('a')).toBe(true);
    expect(await counts()).toEqual({ active: 2 });
    expect(await index.entry('a')).toBe(0);
    expect(await index.changedSince(seq)).toEqual({ seq: seq + 1, names: ['a'] });
    expect(await routines.getState('a')).toMatchObject({ consecutiveFailures: 0 });
    expect((await routines.getState('a')).disabledReason).toBeUndefined();
    expect((await routines.getState('a')).lastLaunchError).toBeUndefined();
    expect(await routines.enable('a')).toBe(false); // nothing to re-enable: nothing counted or logged
    expect(await counts()).toEqual({ active: 2 });
    expect(await index.seq()).toBe(seq + 1);
    await expect(routines.enable('nope')).rejects.toThrow(/does not exist/);

    await routines.advanceCursor('b', undefined, { disabledReason: 'launch failed 5 times' });
    expect(await counts()).toEqual({ active: 1, disabled: 1 });
    await routines.remove('b');
    expect(await counts()).toEqual({ active: 1 });
  });

  it('a bulk creation enters, counts and logs every routine it made, and none it found', async () => {
    await routines.upsert(routine('b'), 'api', T0);
    await park('b');
    const { created } = await routines.createMany([routine('a'), routine('b'), routine('c')], 'api', T0);
    expect(created).toEqual(['a', 'c']);
    expect(await index.due(0)).toEqual([
      { name: 'a', at: 0 },
      { name: 'c', at: 0 },
    ]);
    expect(await index.changedSince(1)).toEqual({ seq: 3, names: ['a', 'c'] });
    expect(await index.counts()).toEqual(new Map([['active', 3]]));
  });

  it("the leader's writes land only while the state is what it read; a stale token writes nothing", async () => {
    await routines.upsert(routine('a'), 'api', T0);
    await routines.upsert(routine('b'), 'api', T0);
    const stateA = await routines.getState('a');
    await routines.upsert(routine('a', { payload: { x: 1 } }), 'api', T0);
    await index.put(TOKEN, [
      { name: 'a', at: T0 + MIN, from: stateA },
      { name: 'b', at: T0 + MIN, from: await routines.getState('b') },
    ]);
    expect(await index.entry('a')).toBe(0);
    expect(await index.entry('b')).toBe(T0 + MIN);
    await redis.zadd(keys.routineDue(), 1, 'gone');
    await index.put(TOKEN, [
      { name: 'b', at: T0 + 5 * MIN, from: await routines.getState('b') },
      { name: 'gone', at: T0, from: {} },
    ]);
    expect(await index.entry('b')).toBe(T0 + 5 * MIN);
    expect(await index.entry('gone')).toBeUndefined();
    await expect(index.put('old|n0|0', [{ name: 'b', at: 5, from: {} }])).rejects.toThrow(StaleLeaderError);
    expect(await index.entry('b')).toBe(T0 + 5 * MIN);
  });

  it('says when the change log no longer reaches back far enough', async () => {
    await routines.upsert(routine('a'), 'api', T0);
    await redis.incrby(keys.routineChangeSeq(), CHANGE_LOG_SIZE);
    expect((await index.changedSince(0)).names).toBeUndefined();
    expect((await index.changedSince(1)).names).toEqual([]);
  });
});
