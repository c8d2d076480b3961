import { parseBundle, RoutineNotFoundError, RoutineVersionConflictError, type Routine } from '@drover/core';
import { StaleLeaderError, type DroverKeys, type RedisConnections } from '@drover/redis';
import { testStores } from '@drover/testing';
import type { RunStore } from '../runs/run.store';
import type { RoutineStore } from './routine.store';
import { RoutineNotTriggerableError, triggerRoutine } from './routine-trigger';

function routine(name: string, extra: Record<string, unknown> = {}): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name, jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: 60_000 }, ...extra }],
  });
  if (!res.ok) throw new Error(res.errors.join());
  return res.bundle.routines[0]!;
}

describe('RoutineStore on a real Redis', () => {
  let conns: RedisConnections;
  let keys: DroverKeys;
  let store: RoutineStore;
  let runs: RunStore;

  let stores: ReturnType<typeof testStores>;

  beforeEach(async () => {
    stores = testStores('routines');
    ({ connections: conns, keys, routines: store, runs } = stores);
    await stores.registry.put([{ name: 'default' }]);
  });

  afterEach(async () => {
    await stores.close();
  });

  it('creates, reports unchanged, updates with a new version, and removes', async () => {
    expect(await store.upsert(routine('a'), 'api', 1000)).toBe('created');
    expect(await store.upsert(routine('a'), 'api', 2000)).toBe('unchanged');
    expect(await store.upsert(routine('a', { payload: { x: 1 } }), 'api', 3000)).toBe('updated');
    expect(await store.get('a')).toMatchObject({
      version: 2,
      createdAt: 1000,
      updatedAt: 3000,
      def: { payload: { x: 1 } },
    });
    expect((await store.getState('a')).since).toBe(1000);
    expect(await store.remove('a')).toBe(true);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.remove('a')).toBe(false);
  });

  it('applies file routines: creates, updates, removes file ones no longer listed, leaves API ones alone', async () => {
    await store.upsert(routine('from-api'), 'api', 1);
    await store.applyFileRoutines([routine('f1'), routine('f2')], 1);
    const dry = await store.applyFileRoutines([routine('f1', { priority: 'high' }), routine('f3')], 2, {
      dryRun: true,
    });
    expect(dry).toEqual({ created: ['f3'], updated: ['f1'], removed: ['f2'], unchanged: [] });
    expect((await store.names()).sort()).toEqual(['f1', 'f2', 'from-api']); // a dry run writes nothing
    const diff = await store.applyFileRoutines([routine('f1', { priority: 'high' }), routine('f3')], 2);
    expect(diff).toEqual(dry);
    expect((await store.names()).sort()).toEqual(['f1', 'f3', 'from-api']);
  });

  it('keeps the version in the routine state, where workers compare it with a run armed ahead', async () => {
    await store.upsert(routine('v'), 'api', 1);
    expect((await store.getState('v')).version).toBe(1);
    await store.upsert(routine('v', { payload: { n: 2 } }), 'api', 2);
    expect((await store.getState('v')).version).toBe(2);
  });

  it('never loses one of two concurrent edits: each gets its own version', async () => {
    await store.upsert(routine('race'), 'api', 1);
    const edits = [1, 2, 3, 4, 5].map((n) => store.upsert(routine('race', { payload: { n } }), 'api', 2));
    expect(await Promise.all(edits)).toEqual(['updated', 'updated', 'updated', 'updated', 'updated']);
    expect((await store.get('race'))!.version).toBe(6);
  });

  it('writes only at the version the caller expects (If-Match), or refuses naming both versions', async () => {
    await store.upsert(routine('m'), 'api', 1);
    await expect(store.upsert(routine('m', { payload: { a: 1 } }), 'api', 2, { ifVersion: 3 })).rejects.toThrow(
      new RoutineVersionConflictError('m', 3, 1),
    );
    expect(await store.upsert(routine('m', { payload: { a: 1 } }), 'api', 2, { ifVersion: 1 })).toBe('updated');
    await expect(store.remove('m', { ifVersion: 1 })).rejects.toBeInstanceOf(RoutineVersionConflictError);
    expect((await store.get('m'))!.def.payload).toEqual({ a: 1 });
    expect(await store.remove('m', { ifVersion: 2 })).toBe(true);
  });

  it('refuses writes fenced by a leader token that is no longer current, and writes nothing', async () => {
    await conns.command.set(keys.leader(), 'sched-2|9');
    await expect(store.upsert(routine('f'), 'file', 1, { token: 'sched-1|8' })).rejects.toBeInstanceOf(
      StaleLeaderError,
    );
    expect(await store.get('f')).toBeUndefined();
    expect(await store.upsert(routine('f'), 'file', 1, { token: 'sched-2|9' })).toBe('created');
    await expect(store.remove('f', { token: 'sched-1|8' })).rejects.toBeInstanceOf(StaleLeaderError);
    await expect(store.applyFileRoutines([], 2, { token: 'sched-1|8' })).rejects.toBeInstanceOf(StaleLeaderError);
    expect(await store.get('f')).toBeDefined();
  });

  it('deletes a routine with its state and run indexes, handing its armed runs to the leader to withdraw', async () => {
    await store.upsert(routine('gone'), 'api', 1);
    await conns.command.hset(store.stateKey('gone'), 'armed', '120000:1:default,180000:1:default');
    await conns.command.zadd(keys.routineRuns('gone'), 1, 'default:r-gone-60000');
    await conns.command.zadd(keys.routineOpen('gone'), 1, 'default:r-gone-60000');
    expect(await store.remove('gone')).toBe(true);
    expect(await conns.command.exists(store.stateKey('gone'), keys.routineRuns('gone'), keys.routineOpen('gone'))).toBe(
      0,
    );
    expect(await store.pendingDisarms()).toEqual(
      new Map([
        [
          'gone',
          [
            { slot: 120_000, version: 1, queue: 'default' },
            { slot: 180_000, version: 1, queue: 'default' },
          ],
        ],
      ]),
    );
    // A dispatcher finishing late cannot bring the state back.
    await store.advanceCursor('gone', 240_000, { lastRunId: 'r-gone-240000' });
    expect(await conns.command.exists(store.stateKey('gone'))).toBe(0);
  });

  it('pauses with who, why and until when; an edit while paused keeps the pause; resuming clears it', async () => {
    await store.upsert(routine('p2'), 'api', 1000);
    const pause = { at: 2000, by: 'alice', note: 'migrating the db', until: 90_000 };
    expect(await store.pause('p2', pause, 2000)).toMatchObject({ def: { status: 'paused' }, pause, version: 2 });
    await store.upsert({ ...routine('p2', { payload: { x: 1 } }), status: 'paused' }, 'api', 3000);
    expect((await store.get('p2'))!.pause).toEqual(pause);
    const resumed = await store.resume('p2', 4000);
    expect(resumed.def.status).toBe('active');
    expect(resumed.pause).toBeUndefined();
    // The pause that ended is kept as a window for the slot ledger: slots in (2000, 4000] were slept through.
    expect(await store.getState('p2')).toMatchObject({ pausedFrom: 2000, since: 4000 });
    await expect(store.pause('nope', pause, 1)).rejects.toBeInstanceOf(RoutineNotFoundError);
  });

  it('resuming moves the cursor to the resume time so paused slots are not caught up', async () => {
    await store.upsert(routine('p'), 'api', 1000);
    await store.setStatus('p', 'paused', 2000);
    await store.setStatus('p', 'active', 90_000);
    expect(await store.getState('p')).toMatchObject({ lastSlot: 90_000, since: 90_000 });
    await expect(store.setStatus('missing', 'paused', 1)).rejects.toBeInstanceOf(RoutineNotFoundError);
  });

  it('moves the cursor forward only and patches state in one call', async () => {
    await store.upsert(routine('c'), 'api', 0);
    await store.advanceCursor('c', 5000, { lastRunId: 'r-c-5000' });
    await store.advanceCursor('c', 3000, { consecutiveFailures: 2 });
    expect(await store.getState('c')).toMatchObject({ lastSlot: 5000, lastRunId: 'r-c-5000', consecutiveFailures: 2 });
    await store.advanceCursor('c', undefined, { consecutiveFailures: 0, disabledReason: undefined });
    expect(await store.getState('c')).toMatchObject({ lastSlot: 5000, consecutiveFailures: 0 });
  });

  it('creates many routines in bulk and leaves existing ones untouched', async () => {
    await store.upsert(routine('bulk-1', { priority: 'high' }), 'api', 1);
    const res = await store.createMany([routine('bulk-1'), routine('bulk-2'), routine('bulk-3')], 'file', 2);
    expect(res).toEqual({ created: ['bulk-2', 'bulk-3'], existing: ['bulk-1'] });
    expect((await store.get('bulk-1'))!.def.priority).toBe('high');
  });

  it('triggers a run by hand, even when paused, but not when archived or missing', async () => {
    await store.upsert(routine('manual-me', { status: 'paused', payload: { n: 1 } }), 'api', 1);
    const { id } = await triggerRoutine({ routines: store, runs }, 'manual-me', {
      now: 10_000,
      random: () => 0.5,
      by: 'alice',
    });
    expect(id).toMatch(/^m-/);
    expect(await runs.get(id)).toMatchObject({
      routine: 'manual-me',
      source: 'manual',
      status: 'queued',
      createdBy: 'alice',
    });
    await store.setStatus('manual-me', 'archived', 2);
    await expect(
      triggerRoutine({ routines: store, runs }, 'manual-me', { now: 1, random: () => 0.1 }),
    ).rejects.toBeInstanceOf(RoutineNotTriggerableError);
    await expect(
      triggerRoutine({ routines: store, runs }, 'nope', { now: 1, random: () => 0.1 }),
    ).rejects.toBeInstanceOf(RoutineNotFoundError);
  });
});
