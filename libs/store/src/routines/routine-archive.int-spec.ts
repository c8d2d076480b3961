import { parseBundle, RoutineArchivedError, RoutineNotFoundError, type Routine } from '@drover/core';
import { testStores } from '@drover/testing';
import type { RoutineStore } from './routine.store';

function routine(name: string, extra: Record<string, unknown> = {}): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name, jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: 60_000 }, ...extra }],
  });
  if (!res.ok) throw new Error(res.errors.join());
  return res.bundle.routines[0]!;
}

describe('archiving routines (real Redis)', () => {
  let stores: ReturnType<typeof testStores>;
  let store: RoutineStore;

  beforeEach(async () => {
    stores = testStores('routine-archive');
    ({ routines: store } = stores);
    await stores.registry.put([{ name: 'default' }]);
  });

  afterEach(() => stores.close());

  it('archives with who and when, once: a repeat writes nothing; unarchive makes it active from now on', async () => {
    await store.upsert(routine('a'), 'api', 1);
    const rec = await store.archive('a', 5, { by: 'alice' });
    expect(rec).toMatchObject({ def: { status: 'archived' }, archive: { at: 5, by: 'alice' }, version: 2 });
    expect(await store.archive('a', 9, { by: 'bob' })).toEqual(rec);
    const back = await store.unarchive('a', 20, { by: 'bob' });
    expect(back).toMatchObject({ def: { status: 'active' }, version: 3 });
    expect(back.archive).toBeUndefined();
    // Slots it slept through are not caught up, as after a resume.
    expect((await store.getState('a')).since).toBe(20);
    expect(await store.unarchive('a', 30)).toEqual(back);
    await expect(store.archive('missing', 1)).rejects.toBeInstanceOf(RoutineNotFoundError);
  });

  it('refuses to pause or resume an archived routine, and keeps it archived through an edit', async () => {
    await store.upsert(routine('a'), 'api', 1);
    await store.archive('a', 2, { by: 'alice' });
    await expect(store.pause('a', { at: 3 }, 3)).rejects.toBeInstanceOf(RoutineArchivedError);
    await expect(store.resume('a', 3)).rejects.toBeInstanceOf(RoutineArchivedError);
    await store.upsert(routine('a', { status: 'archived', priority: 'high' }), 'api', 4, { by: 'bob' });
    expect(await store.get('a')).toMatchObject({ def: { status: 'archived' }, archive: { at: 2, by: 'alice' } });
  });

  it('keeps an archive someone made through an apply of the policy file; the file alone archives nothing it did not say', async () => {
    await store.applyFileRoutines([routine('f'), routine('g', { status: 'archived' })], 1);
    await store.archive('f', 2, { by: 'alice' });
    const diff = await store.applyFileRoutines([routine('f'), routine('g')], 3);
    expect(diff.unchanged).toContain('f');
    expect((await store.get('f'))!.def.status).toBe('archived');
    expect((await store.get('g'))!.def.status).toBe('active');
  });
});
