import { parseBundle, runIdForIdempotencyKey, type Routine } from '@drover/core';
import { testStores } from '@drover/testing';
import type { RunStore } from '../runs/run.store';
import type { RoutineStore } from './routine.store';
import { TriggerKeyConflictError, triggerRoutine } from './routine-trigger';

function routine(name: string, extra: Record<string, unknown> = {}): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name, jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: 60_000 }, ...extra }],
  });
  if (!res.ok) throw new Error(res.errors.join());
  return res.bundle.routines[0]!;
}

describe('routine drift, authorship, pauses across applies and keyed triggers (real Redis)', () => {
  let stores: ReturnType<typeof testStores>;
  let store: RoutineStore;
  let runs: RunStore;

  beforeEach(async () => {
    stores = testStores('routine-drift');
    ({ routines: store, runs } = stores);
    await stores.registry.put([{ name: 'default' }]);
  });

  afterEach(() => stores.close());

  it('records who created and who last changed a routine', async () => {
    await store.upsert(routine('a'), 'api', 1, { by: 'alice' });
    await store.upsert(routine('a', { priority: 'high' }), 'api', 2, { by: 'bob' });
    expect(await store.get('a')).toMatchObject({ createdBy: 'alice', updatedBy: 'bob', version: 2 });
    await store.applyFileRoutines([routine('f')], 3);
    const file = (await store.get('f'))!;
    expect(file.createdBy).toBeUndefined();
    expect(file.updatedBy).toBeUndefined();
  });

  it('keeps an API-edited file routine a file routine, marked drifted until the next apply overwrites it', async () => {
    await store.applyFileRoutines([routine('f')], 1);
    expect(await store.upsert(routine('f'), 'api', 2, { by: 'alice' })).toBe('unchanged');
    expect((await store.get('f'))!.drift).toBeUndefined();

    await store.upsert(routine('f', { priority: 'high' }), 'api', 3, { by: 'alice' });
    expect(await store.get('f')).toMatchObject({ origin: 'file', drift: { by: 'alice', at: 3 }, version: 2 });
    // Edited back to what the file says: still drifted (the API changed it), until an apply.
    await store.upsert(routine('f'), 'api', 4, { by: 'bob' });
    expect((await store.get('f'))!.drift).toEqual({ by: 'bob', at: 4 });

    const dry = await store.applyFileRoutines([routine('f')], 5, { dryRun: true });
    expect(dry.updated).toEqual(['f']);
    expect((await store.get('f'))!.drift).toBeDefined();
    expect(await store.applyFileRoutines([routine('f')], 6)).toMatchObject({ updated: ['f'] });
    const applied = (await store.get('f'))!;
    expect(applied.drift).toBeUndefined();
    expect(applied.origin).toBe('file');
    expect(await store.applyFileRoutines([routine('f')], 7)).toMatchObject({ unchanged: ['f'] });
  });

  it('keeps a pause someone made across applies of the file, but not one the file made', async () => {
    await store.applyFileRoutines([routine('f'), routine('g', { status: 'paused' })], 1);
    await store.pause('f', { at: 2, by: 'alice', note: 'db migration' }, 2, { by: 'alice' });
    const diff = await store.applyFileRoutines([routine('f'), routine('g')], 3);
    expect(diff).toMatchObject({ unchanged: ['f'], updated: ['g'] });
    expect(await store.get('f')).toMatchObject({ def: { status: 'paused' }, pause: { by: 'alice' } });
    expect((await store.get('g'))!.def.status).toBe('active');
    // A changed definition is applied, the pause kept.
    await store.applyFileRoutines([routine('f', { priority: 'low' })], 4);
    expect(await store.get('f')).toMatchObject({
      def: { status: 'paused', priority: 'low' },
      pause: { note: 'db migration' },
    });
  });

  it('triggers once per idempotency key, concurrent calls included, and refuses the key for another routine', async () => {
    await store.upsert(routine('m', { trigger: { kind: 'manual' } }), 'api', 1);
    await store.upsert(routine('n', { trigger: { kind: 'manual' } }), 'api', 1);
    const calls = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        triggerRoutine({ routines: store, runs }, 'm', { now: 10 + i, random: Math.random, idempotencyKey: 'k1' }),
      ),
    );
    expect(new Set(calls.map((c) => c.id))).toEqual(new Set([runIdForIdempotencyKey('k1')]));
    expect((await runs.listByRoutine('m')).map((r) => r.id)).toEqual([runIdForIdempotencyKey('k1')]);
    const later = await triggerRoutine({ routines: store, runs }, 'm', {
      now: 99,
      random: Math.random,
      idempotencyKey: 'k1',
    });
    expect(later).toEqual({ id: runIdForIdempotencyKey('k1'), created: false });
    await expect(
      triggerRoutine({ routines: store, runs }, 'n', { now: 99, random: Math.random, idempotencyKey: 'k1' }),
    ).rejects.toBeInstanceOf(TriggerKeyConflictError);
    expect(await runs.listByRoutine('n')).toEqual([]);
  });
});
