import type { Trigger } from '../model/trigger.schema';
import { MAX_ENUMERATED_SLOTS, nextFire, prevFire, preview, slotsBetween } from './next-fire';

const NOW = Date.parse('2025-06-15T10:07:30.250Z');
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const cron = (expr: string, tz?: string): Trigger => ({ kind: 'cron', cron: expr, ...(tz && { tz }) });

describe('nextFire', () => {
  it.each<[string, Trigger, string | undefined]>([
    ['cron, UTC by default', cron('0 2 * * *'), '2025-06-16T02:00:00.000Z'],
    ['cron every 5 minutes', cron('*/5 * * * *'), '2025-06-15T10:10:00.000Z'],
    ['cron with seconds', cron('*/15 * * * * *'), '2025-06-15T10:07:45.000Z'],
    ['cron in Berlin (CEST, UTC+2)', cron('0 2 * * *', 'Europe/Berlin'), '2025-06-16T00:00:00.000Z'],
    ['cron in New York (EDT, UTC-4)', cron('30 9 * * 1-5', 'America/New_York'), '2025-06-16T13:30:00.000Z'],
    ['cron on day-of-month OR day-of-week', cron('0 0 1 * 1'), '2025-06-16T00:00:00.000Z'],
    ['cron on the last day of the month', cron('0 0 L * *'), '2025-06-30T00:00:00.000Z'],
    ['interval on the epoch grid', { kind: 'interval', everyMs: 60_000 }, '2025-06-15T10:08:00.000Z'],
    [
      'interval with offset',
      { kind: 'interval', everyMs: 3_600_000, offsetMs: 5 * 60_000 },
      '2025-06-15T11:05:00.000Z',
    ],
    [
      'interval, offset not yet reached',
      { kind: 'interval', everyMs: 3_600_000, offsetMs: 10 * 60_000 },
      '2025-06-15T10:10:00.000Z',
    ],
    ['once in the future', { kind: 'once', at: '2025-12-24T19:00:00+01:00' }, '2025-12-24T18:00:00.000Z'],
    ['once in the past', { kind: 'once', at: '2025-01-01T00:00:00Z' }, undefined],
    ['once exactly now', { kind: 'once', at: new Date(NOW).toISOString() }, undefined],
    ['manual never fires', { kind: 'manual' }, undefined],
  ])('%s', (_name, trigger, expected) => {
    expect(iso(nextFire(trigger, NOW))).toBe(expected);
  });

  it('is strictly after the given time even when that time is a slot', () => {
    const slot = Date.parse('2025-06-15T10:10:00Z');
    expect(iso(nextFire(cron('*/5 * * * *'), slot))).toBe('2025-06-15T10:15:00.000Z');
    expect(iso(nextFire({ kind: 'interval', everyMs: 300_000 }, slot))).toBe('2025-06-15T10:15:00.000Z');
  });

  it('keeps the interval grid whatever time it is asked from (restarts never move it)', () => {
    const t: Trigger = { kind: 'interval', everyMs: 7_000, offsetMs: 3_000 };
    for (const from of [NOW, NOW + 1, NOW + 6_999, NOW - 123_456]) {
      expect(((nextFire(t, from) as number) - 3_000) % 7_000).toBe(0);
    }
    expect(nextFire({ kind: 'interval', everyMs: 1000 }, -1500)).toBe(-1000);
  });

  it('runs out at the end of the calendar', () => {
    expect(nextFire(cron('0 0 1 1 *'), 8.64e15 - 86_400_000)).toBeUndefined();
  });
});

describe('prevFire', () => {
  it.each<[string, Trigger, string | undefined]>([
    ['cron', cron('*/5 * * * *'), '2025-06-15T10:05:00.000Z'],
    ['cron in a zone', cron('0 2 * * *', 'Europe/Berlin'), '2025-06-15T00:00:00.000Z'],
    ['interval', { kind: 'interval', everyMs: 60_000 }, '2025-06-15T10:07:00.000Z'],
    ['once in the past', { kind: 'once', at: '2025-01-01T00:00:00Z' }, '2025-01-01T00:00:00.000Z'],
    ['once in the future', { kind: 'once', at: '2026-01-01T00:00:00Z' }, undefined],
    ['manual', { kind: 'manual' }, undefined],
  ])('%s', (_name, trigger, expected) => {
    expect(iso(prevFire(trigger, NOW))).toBe(expected);
  });

  it('is strictly before the given time', () => {
    expect(iso(prevFire({ kind: 'interval', everyMs: 60_000 }, Date.parse('2025-06-15T10:07:00Z')))).toBe(
      '2025-06-15T10:06:00.000Z',
    );
  });

  it('runs out at the start of the calendar', () => {
    expect(prevFire(cron('0 0 1 1 *'), -8.64e15 + 86_400_000)).toBeUndefined();
  });
});

describe('preview', () => {
  it('lists the next n fire times', () => {
    expect(preview({ trigger: cron('0 */6 * * *') }, NOW, 3).map(iso)).toEqual([
      '2025-06-15T12:00:00.000Z',
      '2025-06-15T18:00:00.000Z',
      '2025-06-16T00:00:00.000Z',
    ]);
    expect(preview({ trigger: { kind: 'interval', everyMs: 1000 } }, 0, 3)).toEqual([1000, 2000, 3000]);
  });

  it('stops when the trigger runs out and clamps n', () => {
    expect(preview({ trigger: { kind: 'once', at: '2025-12-24T18:00:00Z' } }, NOW, 5)).toHaveLength(1);
    expect(preview({ trigger: { kind: 'manual' } }, NOW, 5)).toEqual([]);
    expect(preview({ trigger: cron('* * * * * *') }, NOW, 0)).toEqual([]);
    expect(preview({ trigger: cron('* * * * * *') }, NOW, -3)).toEqual([]);
    expect(preview({ trigger: { kind: 'interval', everyMs: 1000 } }, 0, 1e9)).toHaveLength(MAX_ENUMERATED_SLOTS);
  });
});

describe('slotsBetween', () => {
  const every10s: Trigger = { kind: 'interval', everyMs: 10_000 };

  it('returns the slots in (from, to], ascending', () => {
    expect(slotsBetween(every10s, 10_000, 40_000)).toEqual({ slots: [20_000, 30_000, 40_000], truncated: false });
    expect(slotsBetween(cron('0 * * * *'), 0, 3 * 3_600_000 - 1)).toEqual({
      slots: [3_600_000, 7_200_000],
      truncated: false,
    });
  });

  it('is bounded by the limit and says so', () => {
    expect(slotsBetween(every10s, 0, 1e12, 2)).toEqual({ slots: [10_000, 20_000], truncated: true });
    expect(slotsBetween(every10s, 0, 20_000, 2)).toEqual({ slots: [10_000, 20_000], truncated: false });
    expect(slotsBetween(every10s, 0, 1e15).slots).toHaveLength(MAX_ENUMERATED_SLOTS);
  });

  it('handles triggers that run out', () => {
    expect(slotsBetween({ kind: 'once', at: '1970-01-01T00:00:05Z' }, 0, 10_000)).toEqual({
      slots: [5000],
      truncated: false,
    });
    expect(slotsBetween({ kind: 'manual' }, 0, 1e12)).toEqual({ slots: [], truncated: false });
  });
});
