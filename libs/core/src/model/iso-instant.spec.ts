import { parseIsoInstant } from './iso-instant';

describe('parseIsoInstant', () => {
  it.each([
    ['2026-12-24T18:00:00Z', Date.UTC(2026, 11, 24, 18)],
    ['2026-12-24T18:00Z', Date.UTC(2026, 11, 24, 18)],
    ['2026-12-24T19:00:00+01:00', Date.UTC(2026, 11, 24, 18)],
    ['2026-12-24T13:00:00-0500', Date.UTC(2026, 11, 24, 18)],
    ['2026-12-24T18:00:00.250Z', Date.UTC(2026, 11, 24, 18, 0, 0, 250)],
    ['2028-02-29T00:00:00Z', Date.UTC(2028, 1, 29)],
  ])('%s', (text, ms) => {
    expect(parseIsoInstant(text)).toBe(ms);
  });

  it.each([
    '2026-12-24T18:00:00', // no offset
    '2026-12-24',
    '2027-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-12-24T24:00:00Z',
    '2026-12-24T18:60:00Z',
    '2026-12-24T18:00:60Z',
    '2026-12-24T18:00:00+25:00',
    'next tuesday',
  ])('refuses %s', (text) => {
    expect(parseIsoInstant(text)).toBeUndefined();
  });
});
