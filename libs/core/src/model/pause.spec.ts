import { pauseExpired, pauseFromRequest, pauseRequestSchema } from './pause';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

describe('pausing a routine', () => {
  it('records who paused it, when, why, and until when', () => {
    expect(pauseFromRequest({ note: '  db migration ', until: NOW + 60_000 }, NOW, 'alice')).toEqual({
      ok: true,
      pause: { at: NOW, by: 'alice', note: 'db migration', until: NOW + 60_000 },
    });
    expect(pauseFromRequest({}, NOW)).toEqual({ ok: true, pause: { at: NOW } });
  });

  it('refuses an until that is not in the future, naming it', () => {
    expect(pauseFromRequest({ until: NOW }, NOW)).toEqual({
      ok: false,
      field: 'until',
      error: 'until must be in the future (it is 2026-11-22T12:00:00.000Z)',
    });
  });

  it('refuses a note over 500 characters, naming it (the client and the API share the limit)', () => {
    expect(pauseFromRequest({ note: 'n'.repeat(500) }, NOW).ok).toBe(true);
    expect(pauseFromRequest({ note: 'n'.repeat(501) }, NOW)).toEqual({
      ok: false,
      field: 'note',
      error: 'note has 501 characters; the limit is 500',
    });
  });

  it('resumes by itself once until has come, never without one', () => {
    expect(pauseExpired({ at: NOW, until: NOW + 1000 }, NOW + 999)).toBe(false);
    expect(pauseExpired({ at: NOW, until: NOW + 1000 }, NOW + 1000)).toBe(true);
    expect(pauseExpired({ at: NOW }, NOW + 10 ** 9)).toBe(false);
    expect(pauseExpired(undefined, NOW)).toBe(false);
  });

  it('validates requests with field-named errors', () => {
    expect(pauseRequestSchema.safeParse({ note: 'x', until: '2026-12-24T18:00:00Z' }).success).toBe(true);
    const bad = pauseRequestSchema.safeParse({ until: 'tomorrow', reason: 'x' });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => i.path.join('.'))).toEqual(expect.arrayContaining(['until']));
  });
});
