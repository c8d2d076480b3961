import { fromWallMs, isValidTimeZone, offsetTransition, toWallMs, zoneOffsetMs } from './time-zone';

const H = 3_600_000;
const at = (s: string) => Date.parse(s);

describe('time zones', () => {
  it.each([
    ['Europe/Berlin', true],
    ['America/New_York', true],
    ['UTC', true],
    ['Mars/Olympus', false],
    ['', false],
    ['  ', false],
  ])('isValidTimeZone(%j) = %s', (tz, ok) => {
    expect(isValidTimeZone(tz)).toBe(ok);
  });

  it('gives the UTC offset in ms', () => {
    expect(zoneOffsetMs(at('2025-01-15T12:00:00Z'), 'Europe/Berlin')).toBe(1 * H);
    expect(zoneOffsetMs(at('2025-07-15T12:00:00Z'), 'Europe/Berlin')).toBe(2 * H);
    expect(zoneOffsetMs(at('2025-07-15T12:00:00Z'), 'America/New_York')).toBe(-4 * H);
    expect(zoneOffsetMs(at('2025-07-15T12:00:00Z'), 'Asia/Kolkata')).toBe(5.5 * H);
    expect(zoneOffsetMs(at('0050-07-15T12:00:00Z'), 'UTC')).toBe(0);
    expect(zoneOffsetMs(-8.64e15 + 86_400_000, 'UTC')).toBe(0);
    expect(toWallMs(at('2025-07-15T12:00:00Z'), 'Europe/Berlin')).toBe(at('2025-07-15T14:00:00Z'));
  });

  it('maps wall-clock time back to instants by the DST policy', () => {
    expect(fromWallMs(at('2025-07-15T14:00:00Z'), 'Europe/Berlin')).toEqual({
      epochMs: at('2025-07-15T12:00:00Z'),
      gap: false,
      ambiguous: false,
    });
    expect(fromWallMs(at('2025-03-30T02:30:00Z'), 'Europe/Berlin')).toEqual({
      epochMs: at('2025-03-30T01:00:00Z'),
      gap: true,
      ambiguous: false,
    });
    expect(fromWallMs(at('2025-10-26T02:30:00Z'), 'Europe/Berlin')).toEqual({
      epochMs: at('2025-10-26T00:30:00Z'),
      gap: false,
      ambiguous: true,
    });
  });

  it('finds an offset transition to the second', () => {
    expect(offsetTransition(at('2025-03-30T00:00:00Z'), at('2025-03-30T02:00:00Z'), 'Europe/Berlin')).toBe(
      at('2025-03-30T01:00:00Z'),
    );
  });
});
