import { formatInstant, parseDuration, parseInstant } from './human-time';

describe('human time', () => {
  const now = Date.parse('2026-11-24T20:59:20.456Z');

  it('shows an instant one way, in UTC with its zone, from ms or ISO in any offset', () => {
    expect(formatInstant(now)).toBe('2026-11-24 20:59:20 UTC');
    expect(formatInstant('2026-11-24T21:59:20+01:00')).toBe('2026-11-24 20:59:20 UTC');
    expect(formatInstant(undefined)).toBe('—');
    expect(formatInstant('soon', '-')).toBe('-');
  });

  it('reads durations', () => {
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('250')).toBe(250);
    expect(parseDuration('2 hours')).toBeUndefined();
  });

  it.each([
    ['2h', '2026-11-24T22:59:20.456Z'],
    ['-30m', '2026-11-24T20:29:20.456Z'],
    ['tomorrow 09:00', '2026-11-25T09:00:00.000Z'],
    ['Today 23:30', '2026-11-24T23:30:00.000Z'],
    ['tomorrow', '2026-11-25T00:00:00.000Z'],
    ['2026-12-24T18:00:00Z', '2026-12-24T18:00:00Z'],
  ])('reads %s as an instant', (text, iso) => {
    expect(parseInstant(text, now)).toBe(iso);
  });

  it.each(['soon', 'tomorrow 25:00', '2 hours', '12/24/2026'])('refuses %s', (text) => {
    expect(parseInstant(text, now)).toBeUndefined();
  });
});
