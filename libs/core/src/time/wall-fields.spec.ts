import fc from 'fast-check';
import { WALL_CLOCK_FORMAT, wallFields } from './wall-fields';

const options = WALL_CLOCK_FORMAT;

/** The fields as `formatToParts` names them: what the fast reading must always agree with. */
function byParts(f: Intl.DateTimeFormat, at: Date): number[] {
  const parts = f.formatToParts(at);
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)!.value);
  const year = parts.find((p) => p.type === 'era')!.value === 'BC' ? 1 - get('year') : get('year');
  return [year, get('month'), get('day'), get('hour'), get('minute'), get('second')];
}

// Zones with DST, half-hour and 45-minute offsets, the date line, and historical oddities.
const zones = [
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Asia/Kolkata',
  'Pacific/Kiritimati',
  'Pacific/Apia',
  'Africa/Monrovia',
  'America/St_Johns',
];

describe('wallFields', () => {
  it('reads what formatToParts reads, at any instant Date holds, in any zone', () => {
    const formatters = zones.map((timeZone) => new Intl.DateTimeFormat('en-US', { ...options, timeZone }));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: formatters.length - 1 }),
        fc.oneof(
          fc.integer({ min: -8.64e15, max: 8.64e15 }),
          // Most weight on the years schedules live in.
          fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) }),
        ),
        (z, ms) => {
          const at = new Date(Math.floor(ms / 1000) * 1000);
          expect(wallFields(formatters[z]!, at)).toEqual(byParts(formatters[z]!, at));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('reads the fields by their parts when the formatter writes them another way', () => {
    // German writes `1.2.2026 n. Chr., 13:04:05`: not the en-US shape, so the parts are read.
    const de = new Intl.DateTimeFormat('de-DE', { ...options, timeZone: 'UTC' });
    expect(de.format(new Date(Date.UTC(2026, 1, 1, 13, 4, 5)))).not.toMatch(/^\d+\/\d+\/\d+ /);
    expect(wallFields(de, new Date(Date.UTC(2026, 1, 1, 13, 4, 5)))).toEqual([2026, 2, 1, 13, 4, 5]);
  });

  it('counts years before 1 AD astronomically (1 BC is year 0)', () => {
    const utc = new Intl.DateTimeFormat('en-US', { ...options, timeZone: 'UTC' });
    const at = new Date(Date.UTC(2000, 5, 1));
    at.setUTCFullYear(-1);
    expect(utc.format(at)).toMatch(/ BC,/);
    expect(wallFields(utc, at)).toEqual([-1, 6, 1, 0, 0, 0]);
  });
});
