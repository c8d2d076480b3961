import { localIso, previewFires } from './fire-preview';

const iso = (s: string) => Date.parse(s);

describe('previewing the next fires', () => {
  it('writes local time with the zone offset', () => {
    expect(localIso(iso('2026-01-15T01:00:00Z'), 'Europe/Berlin')).toBe('2026-01-15T02:00:00.000+01:00');
    expect(localIso(iso('2026-07-15T01:00:00Z'), 'America/New_York')).toBe('2026-07-14T21:00:00.000-04:00');
    expect(localIso(iso('2026-07-15T01:00:00Z'), 'Asia/Kolkata')).toBe('2026-07-15T06:30:00.000+05:30');
    expect(localIso(iso('2026-07-15T01:00:00Z'), 'UTC')).toBe('2026-07-15T01:00:00.000+00:00');
  });

  it('marks a fire moved out of a spring-forward gap', () => {
    const fires = previewFires(
      { kind: 'cron', cron: '30 2 * * *', tz: 'Europe/Berlin' },
      iso('2026-03-27T12:00:00Z'),
      3,
    );
    expect(fires).toEqual([
      { at: iso('2026-03-28T01:30:00Z'), local: '2026-03-28T02:30:00.000+01:00' },
      { at: iso('2026-03-29T01:00:00Z'), local: '2026-03-29T03:00:00.000+02:00', dst: 'gap' },
      { at: iso('2026-03-30T00:30:00Z'), local: '2026-03-30T02:30:00.000+02:00' },
    ]);
  });

  it('does not mark a fire that lands on the transition because the expression names it', () => {
    const fires = previewFires(
      { kind: 'cron', cron: '0 3 * * *', tz: 'Europe/Berlin' },
      iso('2026-03-28T12:00:00Z'),
      1,
    );
    expect(fires).toEqual([{ at: iso('2026-03-29T01:00:00Z'), local: '2026-03-29T03:00:00.000+02:00' }]);
  });

  it('marks a fire in a repeated fall-back hour, which fires once', () => {
    const fires = previewFires(
      { kind: 'cron', cron: '30 2 * * *', tz: 'Europe/Berlin' },
      iso('2026-10-24T12:00:00Z'),
      2,
    );
    expect(fires).toEqual([
      { at: iso('2026-10-25T00:30:00Z'), local: '2026-10-25T02:30:00.000+02:00', dst: 'overlap' },
      { at: iso('2026-10-26T01:30:00Z'), local: '2026-10-26T02:30:00.000+01:00' },
    ]);
  });

  it('previews interval and once triggers in UTC, and nothing for manual ones', () => {
    expect(previewFires({ kind: 'interval', everyMs: 60_000 }, iso('2026-01-01T00:00:30Z'), 2)).toEqual([
      { at: iso('2026-01-01T00:01:00Z'), local: '2026-01-01T00:01:00.000+00:00' },
      { at: iso('2026-01-01T00:02:00Z'), local: '2026-01-01T00:02:00.000+00:00' },
    ]);
    expect(previewFires({ kind: 'once', at: '2026-12-24T18:00:00Z' }, iso('2026-01-01T00:00:00Z'), 5)).toHaveLength(1);
    expect(previewFires({ kind: 'manual' }, 0, 5)).toEqual([]);
  });
});
