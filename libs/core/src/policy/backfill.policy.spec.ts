import { backfillSlots } from './backfill.policy';

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const everyMinute = { kind: 'interval', everyMs: MIN } as const;

describe('backfilling a range of slots', () => {
  it('runs every slot in (from, to], the start excluded and the end included', () => {
    expect(backfillSlots(everyMinute, T0, T0 + 3 * MIN, 100)).toEqual({
      slots: [T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN],
      capped: 0,
      exact: true,
    });
  });

  it('keeps the newest slots up to the cap and counts the ones it left out', () => {
    expect(backfillSlots(everyMinute, T0, T0 + 10 * MIN, 3)).toEqual({
      slots: [T0 + 8 * MIN, T0 + 9 * MIN, T0 + 10 * MIN],
      capped: 7,
      exact: true,
    });
  });

  it('follows the cron calendar in its time zone', () => {
    const daily = { kind: 'cron', cron: '0 2 * * *', tz: 'Europe/Berlin' } as const;
    const { slots } = backfillSlots(daily, T0, T0 + 3 * 24 * 60 * MIN, 100);
    expect(slots.map((s) => new Date(s).toISOString())).toEqual([
      '2026-01-01T01:00:00.000Z',
      '2026-01-02T01:00:00.000Z',
      '2026-01-03T01:00:00.000Z',
    ]);
    expect(backfillSlots(daily, T0, T0 + 40 * 24 * 60 * MIN, 5)).toMatchObject({ capped: 35, exact: true });
  });

  it('has nothing to run for a manual routine or an empty range', () => {
    expect(backfillSlots({ kind: 'manual' }, T0, T0 + 60 * MIN, 100)).toEqual({ slots: [], capped: 0, exact: true });
    expect(backfillSlots(everyMinute, T0, T0 + 30_000, 100).slots).toEqual([]);
  });
});
