import { fileRoutineToApply, nextRoutineRecord, statusAfter, upsertChange, type RoutineRecord } from './routine-record';
import { validateRoutine } from './routine-validation';
import type { Routine } from './routine.schema';

function routine(over: Record<string, unknown> = {}): Routine {
  const res = validateRoutine({ name: 'r', jobType: 'noop', queue: 'default', trigger: { kind: 'manual' }, ...over }, [
    'default',
  ]);
  if (!res.ok) throw new Error(res.errors.join());
  return res.routine;
}

function record(over: Partial<RoutineRecord> = {}): RoutineRecord {
  return { def: routine(), origin: 'api', createdAt: 1, updatedAt: 1, version: 1, ...over };
}

describe('the record a routine write stores', () => {
  it('creates version 1, recording who created it', () => {
    expect(nextRoutineRecord(undefined, { def: routine(), origin: 'api' }, 5, 'alice')).toEqual({
      def: routine(),
      origin: 'api',
      createdAt: 5,
      updatedAt: 5,
      version: 1,
      createdBy: 'alice',
      updatedBy: 'alice',
    });
  });

  it('bumps the version and keeps the creation when the definition changes', () => {
    const prev = record({ createdBy: 'alice' });
    expect(nextRoutineRecord(prev, { def: routine({ priority: 'high' }), origin: 'api' }, 9, 'bob')).toMatchObject({
      createdAt: 1,
      updatedAt: 9,
      version: 2,
      createdBy: 'alice',
      updatedBy: 'bob',
    });
  });

  it('writes nothing when nothing changes', () => {
    expect(nextRoutineRecord(record(), { def: routine(), origin: 'api' }, 9)).toBeUndefined();
    expect(nextRoutineRecord(record(), { def: routine(), origin: 'file' }, 9)).toBeDefined();
  });

  it('keeps a pause while the routine stays paused, starts one at now, and drops it on resume', () => {
    const paused = routine({ status: 'paused' });
    const pause = { at: 2, by: 'alice', note: 'migration' };
    expect(nextRoutineRecord(record(), { def: paused, origin: 'api' }, 7)!.pause).toEqual({ at: 7 });
    expect(nextRoutineRecord(record(), { def: paused, origin: 'api', pause: null }, 7)!.pause).toEqual({ at: 7 });
    const prev = record({ def: paused, pause });
    expect(
      nextRoutineRecord(prev, { def: routine({ status: 'paused', priority: 'high' }), origin: 'api' }, 8)!.pause,
    ).toBe(pause);
    const replaced = { at: 8, by: 'bob' };
    expect(nextRoutineRecord(prev, { def: paused, origin: 'api', pause: replaced }, 8)!.pause).toBe(replaced);
    expect(nextRoutineRecord(prev, { def: routine(), origin: 'api' }, 8)).not.toHaveProperty('pause');
  });

  it('keeps the drift unless the change sets or clears it', () => {
    const prev = record({ origin: 'file', drift: { at: 3, by: 'alice' } });
    const edited = routine({ priority: 'high' });
    expect(nextRoutineRecord(prev, { def: edited, origin: 'file' }, 4)!.drift).toEqual({ at: 3, by: 'alice' });
    expect(nextRoutineRecord(prev, { def: edited, origin: 'file', drift: { at: 4 } }, 4)!.drift).toEqual({ at: 4 });
    expect(nextRoutineRecord(prev, { def: routine(), origin: 'file', drift: null }, 4)).not.toHaveProperty('drift');
  });
});

describe('an upsert of a routine', () => {
  it('keeps an API edit of a file routine a file routine, drifted unless identical', () => {
    const prev = record({ origin: 'file' });
    expect(upsertChange(prev, routine({ priority: 'high' }), 'api', 4, 'alice')).toEqual({
      def: routine({ priority: 'high' }),
      origin: 'file',
      drift: { at: 4, by: 'alice' },
    });
    expect(upsertChange(prev, routine(), 'api', 4, 'alice')).toEqual({ def: routine(), origin: 'file' });
  });

  it('takes the origin it is given, and clears any drift, otherwise', () => {
    expect(upsertChange(undefined, routine(), 'api', 4)).toEqual({ def: routine(), origin: 'api', drift: null });
    expect(upsertChange(record({ origin: 'file' }), routine(), 'file', 4)).toEqual({
      def: routine(),
      origin: 'file',
      drift: null,
    });
  });
});

describe('applying a policy file routine', () => {
  it('keeps a pause someone made while the file says active, but not one the file made', () => {
    const byAlice = record({ origin: 'file', def: routine({ status: 'paused' }), pause: { at: 2, by: 'alice' } });
    expect(fileRoutineToApply(byAlice, routine())).toEqual({ def: routine({ status: 'paused' }), unchanged: true });
    const byFile = record({ origin: 'file', def: routine({ status: 'paused' }), pause: { at: 2 } });
    expect(fileRoutineToApply(byFile, routine())).toEqual({ def: routine(), unchanged: false });
  });

  it('is unchanged only for the same undrifted file routine', () => {
    expect(fileRoutineToApply(undefined, routine()).unchanged).toBe(false);
    expect(fileRoutineToApply(record({ origin: 'file' }), routine()).unchanged).toBe(true);
    expect(fileRoutineToApply(record({ origin: 'api' }), routine()).unchanged).toBe(false);
    expect(fileRoutineToApply(record({ origin: 'file', drift: { at: 2 } }), routine()).unchanged).toBe(false);
  });
});

describe('archiving a routine', () => {
  const archived = (by?: string): RoutineRecord =>
    record({ def: routine({ status: 'archived' }), archive: { at: 3, ...(by && { by }) } });

  it('records who archived it and when, keeps that while it stays archived, and drops it otherwise', () => {
    const rec = nextRoutineRecord(record(), { def: routine({ status: 'archived' }), origin: 'api' }, 7, 'alice');
    expect(rec?.archive).toEqual({ at: 7, by: 'alice' });
    const edited = nextRoutineRecord(rec, { def: routine({ status: 'archived', priority: 'high' }), origin: 'api' }, 9);
    expect(edited?.archive).toEqual({ at: 7, by: 'alice' });
    expect(nextRoutineRecord(edited, { def: routine(), origin: 'api' }, 11)?.archive).toBeUndefined();
  });

  it('refuses a pause or a resume of an archived routine; a repeated archive or unarchive changes nothing', () => {
    expect(statusAfter('archived', 'pause')).toEqual({ refused: 'paused' });
    expect(statusAfter('archived', 'resume')).toEqual({ refused: 'resumed' });
    expect(statusAfter('archived', 'archive')).toEqual({ status: 'archived', same: true });
    expect(statusAfter('paused', 'archive')).toEqual({ status: 'archived', same: false });
    expect(statusAfter('archived', 'unarchive')).toEqual({ status: 'active', same: false });
    expect(statusAfter('paused', 'unarchive')).toEqual({ status: 'paused', same: true });
    expect(statusAfter('active', 'pause')).toEqual({ status: 'paused', same: false });
  });

  it('survives an apply of the policy file whatever the file says, unless the file archived it', () => {
    expect(fileRoutineToApply(archived('alice'), routine()).def.status).toBe('archived');
    expect(fileRoutineToApply(archived('alice'), routine({ status: 'paused' })).def.status).toBe('archived');
    expect(fileRoutineToApply(archived(), routine()).def.status).toBe('active');
  });
});
