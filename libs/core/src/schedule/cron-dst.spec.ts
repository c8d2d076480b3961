import type { Trigger } from '../model/trigger.schema';
import { nextFire, prevFire, preview } from './next-fire';

/**
 * DST policy: a slot in a spring-forward gap fires at the first valid instant after the gap; a slot in a
 * fall-back repeated hour fires once, at its first occurrence. Checked in two zones either side of the
 * Atlantic (and Lord Howe's 30-minute shift), against what cron-parser alone does.
 */
const cron = (expr: string, tz: string): Trigger => ({ kind: 'cron', cron: expr, tz });
const at = (s: string) => Date.parse(s);
const isos = (xs: number[]) => xs.map((x) => new Date(x).toISOString());

describe('spring forward: run at the next valid instant', () => {
  it.each([
    // Berlin 2025-03-30: 02:00 CET jumps to 03:00 CEST (01:00Z). cron-parser alone says 01:30Z (03:30).
    ['Europe/Berlin', '30 2 * * *', '2025-03-29T12:00:00Z', ['2025-03-30T01:00:00.000Z', '2025-03-31T00:30:00.000Z']],
    ['Europe/Berlin', '0 2 * * *', '2025-03-29T12:00:00Z', ['2025-03-30T01:00:00.000Z', '2025-03-31T00:00:00.000Z']],
    // New York 2025-03-09: 02:00 EST jumps to 03:00 EDT (07:00Z). cron-parser alone says 07:30Z.
    [
      'America/New_York',
      '30 2 * * *',
      '2025-03-08T12:00:00Z',
      ['2025-03-09T07:00:00.000Z', '2025-03-10T06:30:00.000Z'],
    ],
    // Lord Howe 2025-10-05: 02:00 (+10:30) jumps to 02:30 (+11).
    [
      'Australia/Lord_Howe',
      '0 2 * * *',
      '2025-10-04T00:00:00Z',
      ['2025-10-04T15:30:00.000Z', '2025-10-05T15:00:00.000Z'],
    ],
  ])('%s %s', (tz, expr, from, expected) => {
    expect(isos(preview({ trigger: cron(expr, tz) }, at(from), 2))).toEqual(expected);
  });

  it('collapses several gap slots, and the slot at the gap end, into one fire', () => {
    // 01:45 CET = 00:45Z; 02:45 does not exist → 03:00 CEST = 01:00Z.
    expect(isos(preview({ trigger: cron('45 1,2 * * *', 'Europe/Berlin') }, at('2025-03-30T00:00:00Z'), 3))).toEqual([
      '2025-03-30T00:45:00.000Z',
      '2025-03-30T01:00:00.000Z',
      '2025-03-30T23:45:00.000Z',
    ]);
    // */20: 02:00, 02:20, 02:40 do not exist; 03:00 EDT fires once.
    expect(isos(preview({ trigger: cron('*/20 * * * *', 'America/New_York') }, at('2025-03-09T06:30:00Z'), 3))).toEqual(
      ['2025-03-09T06:40:00.000Z', '2025-03-09T07:00:00.000Z', '2025-03-09T07:20:00.000Z'],
    );
  });
});

describe('fall back: run once, at the first occurrence', () => {
  it.each([
    // Berlin 2025-10-26: 03:00 CEST falls back to 02:00 CET; 02:30 happens at 00:30Z and 01:30Z.
    ['Europe/Berlin', '30 2 * * *', '2025-10-25T12:00:00Z', ['2025-10-26T00:30:00.000Z', '2025-10-27T01:30:00.000Z']],
    // New York 2025-11-02: 02:00 EDT falls back to 01:00 EST; 01:30 happens at 05:30Z and 06:30Z.
    [
      'America/New_York',
      '30 1 * * *',
      '2025-11-01T12:00:00Z',
      ['2025-11-02T05:30:00.000Z', '2025-11-03T06:30:00.000Z'],
    ],
  ])('%s %s', (tz, expr, from, expected) => {
    expect(isos(preview({ trigger: cron(expr, tz) }, at(from), 2))).toEqual(expected);
  });

  it('does not repeat an hourly slot in the repeated hour (cron-parser alone fires 01:00 twice)', () => {
    expect(isos(preview({ trigger: cron('0 * * * *', 'America/New_York') }, at('2025-11-02T03:30:00Z'), 4))).toEqual([
      '2025-11-02T04:00:00.000Z', // 00:00 EDT
      '2025-11-02T05:00:00.000Z', // 01:00 EDT (first 01:00)
      '2025-11-02T07:00:00.000Z', // 02:00 EST — the second 01:00 (06:00Z) is not a new slot
      '2025-11-02T08:00:00.000Z',
    ]);
    expect(isos(preview({ trigger: cron('0 * * * *', 'Europe/Berlin') }, at('2025-10-25T22:30:00Z'), 3))).toEqual([
      '2025-10-25T23:00:00.000Z',
      '2025-10-26T00:00:00.000Z',
      '2025-10-26T02:00:00.000Z',
    ]);
  });

  it('asked from inside the second pass, continues after the repeated hour', () => {
    const t = cron('*/20 * * * *', 'America/New_York');
    // 06:10Z is 01:10 EST (second pass): 01:20 and 01:40 already fired at 05:20Z and 05:40Z.
    expect(nextFire(t, at('2025-11-02T06:10:00Z'))).toBe(at('2025-11-02T07:00:00Z'));
    expect(prevFire(t, at('2025-11-02T06:10:00Z'))).toBe(at('2025-11-02T05:40:00Z'));
    expect(prevFire(t, at('2025-11-02T07:10:00Z'))).toBe(at('2025-11-02T07:00:00Z'));
    expect(nextFire(t, at('2025-11-02T05:30:00Z'))).toBe(at('2025-11-02T05:40:00Z'));
  });

  it('an hour after the repetition, nothing is skipped', () => {
    const t = cron('*/20 * * * *', 'America/New_York');
    // 08:10Z is 03:10 EST, 2h after the transition at 06:00Z.
    expect(nextFire(t, at('2025-11-02T08:10:00Z'))).toBe(at('2025-11-02T08:20:00Z'));
    expect(prevFire(t, at('2025-11-02T08:10:00Z'))).toBe(at('2025-11-02T08:00:00Z'));
  });

  it('prevFire mirrors the gap policy', () => {
    expect(prevFire(cron('30 2 * * *', 'Europe/Berlin'), at('2025-03-30T01:00:00.001Z'))).toBe(
      at('2025-03-30T01:00:00Z'),
    );
    expect(prevFire(cron('30 2 * * *', 'Europe/Berlin'), at('2025-03-30T01:00:00Z'))).toBe(at('2025-03-29T01:30:00Z'));
  });
});
