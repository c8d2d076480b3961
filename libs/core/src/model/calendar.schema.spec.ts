import { parseBundle } from './bundle.schema';
import { MAX_CALENDAR_DATES, MAX_EXCLUSIONS } from './calendar.schema';

const routine = (over: Record<string, unknown> = {}) => ({
  name: 'report',
  jobType: 'noop',
  queue: 'default',
  trigger: { kind: 'cron', cron: '0 9 * * *', tz: 'Europe/Berlin' },
  ...over,
});
const bundle = (over: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  queues: [{ name: 'default' }],
  routines: [routine(over)],
  ...extra,
});

function errorsOf(raw: unknown): string[] {
  const r = parseBundle(raw);
  if (r.ok) throw new Error('expected the bundle to be refused');
  return r.errors;
}

describe('exclusion calendars and bounds in a bundle', () => {
  it('resolves a named calendar into the routine, keeping its name, next to inline ones', () => {
    const r = parseBundle(
      bundle(
        { exclude: ['holidays-de', { cron: '* * 31 12 *' }] },
        { calendars: { 'holidays-de': { dates: ['2026-12-25'], tz: 'Europe/Berlin' } } },
      ),
    );
    expect(r.ok && r.bundle.routines[0]!.exclude).toEqual([
      { name: 'holidays-de', dates: ['2026-12-25'], tz: 'Europe/Berlin' },
      { cron: '* * 31 12 *' },
    ]);
  });

  it('names an unknown calendar, a bad date, a bad pattern and a bad zone with their values', () => {
    const errors = errorsOf(
      bundle(
        { exclude: ['nope', { dates: ['2026-02-30'], cron: '* * 32 12 *', tz: 'Mars/Olympus' }] },
        { calendars: { ok: { dates: ['2026-12-25'] } } },
      ),
    );
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^routines\[report\]\.exclude\[0\]: calendar "nope" is not defined/),
        expect.stringMatching(/^routines\[report\]\.exclude\[1\]\.dates\[0\]: "2026-02-30" is not a date YYYY-MM-DD/),
        expect.stringMatching(/^routines\[report\]\.exclude\[1\]\.cron: "\* \* 32 12 \*" is not a valid cron pattern/),
        expect.stringMatching(/^routines\[report\]\.exclude\[1\]\.tz: "Mars\/Olympus" is not an IANA time zone/),
      ]),
    );
  });

  it('reports a bad bundle calendar once, at the calendar', () => {
    const errors = errorsOf(bundle({ exclude: ['h'] }, { calendars: { h: { dates: ['25.12.2026'] } } }));
    expect(errors).toEqual(['calendars.h.dates[0]: "25.12.2026" is not a date YYYY-MM-DD; e.g. "2026-12-25"']);
  });

  it('bounds the dates of a calendar and the exclusions of a routine', () => {
    const dates = Array.from({ length: MAX_CALENDAR_DATES + 1 }, () => '2026-12-25');
    expect(errorsOf(bundle({ exclude: [{ dates }] }))).toEqual([
      `routines[report].exclude[0].dates: lists ${MAX_CALENDAR_DATES + 1} dates; the limit is ${MAX_CALENDAR_DATES}`,
    ]);
    const many = Array.from({ length: MAX_EXCLUSIONS + 1 }, () => ({ cron: '* * 25 12 *' }));
    expect(errorsOf(bundle({ exclude: many }))).toEqual([
      `routines[report].exclude: lists ${MAX_EXCLUSIONS + 1} exclusions; the limit is ${MAX_EXCLUSIONS}`,
    ]);
  });

  it('refuses a calendar that names no day', () => {
    expect(errorsOf(bundle({ exclude: [{ tz: 'UTC' }] }))).toEqual([
      'routines[report].exclude[0]: names no day: give `dates` (YYYY-MM-DD) or `cron`, or both',
    ]);
  });

  it('refuses startAt/endAt without an offset, and an endAt not after startAt', () => {
    expect(errorsOf(bundle({ startAt: '2026-12-01T00:00:00' }))).toEqual([
      'routines[report].startAt: "2026-12-01T00:00:00" is not an ISO 8601 instant with an offset; e.g. "2026-12-24T18:00:00+01:00"',
    ]);
    expect(errorsOf(bundle({ startAt: '2026-12-01T00:00:00Z', endAt: '2026-12-01T01:00:00+01:00' }))).toEqual([
      'routines[report].endAt: "2026-12-01T01:00:00+01:00" is not after startAt "2026-12-01T00:00:00Z"; endAt must be later than startAt',
    ]);
  });
});
