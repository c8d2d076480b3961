import { parseBundle, type Routine, type RoutineRecord } from '@drover/core';
import { splitLater, writeSchedulesAt } from './later-schedules';

const MIN = 60_000;
const HOUR = 60 * MIN;
const NOW = Date.parse('2026-03-10T08:20:00Z');

function routine(name: string, when: Record<string, unknown>): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name, jobType: 'noop', queue: 'default', ...when }],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

describe('writeSchedulesAt (the schedule horizon)', () => {
  it('answers now (undefined) for a first slot within the horizon, the horizon before it otherwise', () => {
    expect(writeSchedulesAt(routine('a', { trigger: { kind: 'interval', everyMs: 10 * MIN } }), NOW, HOUR)).toBe(
      undefined,
    );
    const daily = routine('b', { trigger: { kind: 'cron', cron: '0 3 * * *', tz: 'UTC' } });
    expect(writeSchedulesAt(daily, NOW, HOUR)).toBe(Date.parse('2026-03-11T03:00:00Z') - HOUR);
    // At the edge: a slot exactly one horizon away is written now.
    expect(writeSchedulesAt(daily, Date.parse('2026-03-11T02:00:00Z'), HOUR)).toBe(undefined);
    expect(writeSchedulesAt(daily, Date.parse('2026-03-11T01:59:59.999Z'), HOUR)).toBe(
      Date.parse('2026-03-11T02:00:00Z'),
    );
  });

  it('keeps the time zone, the earliest trigger of a list and startAt', () => {
    const berlin = routine('c', { trigger: { kind: 'cron', cron: '0 3 * * *', tz: 'Europe/Berlin' } });
    expect(writeSchedulesAt(berlin, NOW, HOUR)).toBe(Date.parse('2026-03-11T02:00:00Z') - HOUR);
    const list = routine('d', {
      triggers: [
        { kind: 'cron', cron: '0 3 * * *', tz: 'UTC' },
        { kind: 'cron', cron: '0 12 * * *', tz: 'UTC' },
      ],
    });
    expect(writeSchedulesAt(list, NOW, HOUR)).toBe(Date.parse('2026-03-10T12:00:00Z') - HOUR);
    const started = routine('e', {
      trigger: { kind: 'interval', everyMs: 10 * MIN },
      startAt: '2026-03-12T00:00:00Z',
    });
    expect(writeSchedulesAt(started, NOW, HOUR)).toBe(Date.parse('2026-03-12T00:00:00Z') - HOUR);
  });

  it('writes once and manual routines, and an ended schedule, at once', () => {
    expect(writeSchedulesAt(routine('f', { trigger: { kind: 'once', at: '2027-01-01T00:00:00Z' } }), NOW, HOUR)).toBe(
      undefined,
    );
    expect(writeSchedulesAt(routine('g', { trigger: { kind: 'manual' } }), NOW, HOUR)).toBe(undefined);
    const ended = routine('h', { trigger: { kind: 'cron', cron: '0 3 * * *' }, endAt: '2026-03-01T00:00:00Z' });
    expect(writeSchedulesAt(ended, NOW, HOUR)).toBe(undefined);
  });
});

describe('splitLater', () => {
  it('enters for later only routines never written', () => {
    const rec = (def: Routine) => ({ rec: { def } as RoutineRecord, fingerprint: 'fp' });
    const far = rec(routine('far', { trigger: { kind: 'cron', cron: '0 3 * * *', tz: 'UTC' } }));
    const written = rec(routine('written', { trigger: { kind: 'cron', cron: '0 3 * * *', tz: 'UTC' } }));
    const near = rec(routine('near', { trigger: { kind: 'interval', everyMs: MIN } }));
    const { direct, later } = splitLater([far, written, near], { written: 'old' }, NOW, HOUR);
    expect(direct.map((w) => w.rec.def.name)).toEqual(['written', 'near']);
    expect(later.map((w) => [w.rec.def.name, w.at])).toEqual([['far', Date.parse('2026-03-11T03:00:00Z') - HOUR]]);
  });
});
