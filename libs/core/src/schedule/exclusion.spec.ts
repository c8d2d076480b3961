import { routineSchema, type RoutineInput } from '../model/routine.schema';
import { exclusionOf } from './exclusion';
import { previewFires } from './fire-preview';
import { operatorSkipReason, preemptedSkip, skipRefusal } from './operator-skip';

const routine = (over: Partial<RoutineInput> = {}) =>
  routineSchema().parse({
    name: 'report',
    jobType: 'noop',
    queue: 'default',
    trigger: { kind: 'cron', cron: '0 9 * * *', tz: 'Europe/Berlin' },
    ...over,
  });
const at = (iso: string) => Date.parse(iso);

describe('exclusion calendars', () => {
  it('reads a date in the routine zone: 00:30 Berlin on 25 Dec is still 24 Dec in UTC', () => {
    const r = routine({
      trigger: { kind: 'cron', cron: '30 0 * * *', tz: 'Europe/Berlin' },
      exclude: [{ name: 'xmas', dates: ['2026-12-25'] }],
    });
    expect(exclusionOf(r, at('2026-12-24T23:30:00Z'))).toBe('excluded: xmas');
    expect(exclusionOf(r, at('2026-12-25T23:30:00Z'))).toBeUndefined();
  });

  it("reads a date in the calendar's own zone when it has one", () => {
    const r = routine({ exclude: [{ dates: ['2026-12-25'], tz: 'America/New_York' }] });
    // 09:00 Berlin on 25 Dec is 03:00 in New York: the 25th there too.
    expect(exclusionOf(r, at('2026-12-25T08:00:00Z'))).toBe('excluded: exclude[0]');
    // An interval routine reads UTC by default: 23:30 UTC on the 24th is the 24th.
    const every = routine({ trigger: { kind: 'interval', everyMs: 1_800_000 }, exclude: [{ dates: ['2026-12-25'] }] });
    expect(exclusionOf(every, at('2026-12-24T23:30:00Z'))).toBeUndefined();
    expect(exclusionOf(every, at('2026-12-25T00:00:00Z'))).toBe('excluded: exclude[0]');
  });

  it('matches a cron pattern on local minutes, across a DST change', () => {
    // Europe/Berlin springs forward on 2026-03-29 (UTC+1 → UTC+2): 09:00 local is 08:00Z before, 07:00Z after.
    const r = routine({ exclude: [{ name: 'sunday', cron: '* 9 * * 0' }] });
    expect(exclusionOf(r, at('2026-03-22T08:00:00Z'))).toBe('excluded: sunday');
    expect(exclusionOf(r, at('2026-03-29T07:00:00Z'))).toBe('excluded: sunday');
    expect(exclusionOf(r, at('2026-03-29T08:00:00Z'))).toBeUndefined(); // 10:00 local
    expect(exclusionOf(r, at('2026-03-30T07:00:00Z'))).toBeUndefined(); // Monday
  });

  it('puts an interval slot with seconds into its minute for a 5-field pattern', () => {
    const r = routine({ trigger: { kind: 'interval', everyMs: 30_000 }, exclude: [{ cron: '0 12 * * *' }] });
    expect(exclusionOf(r, at('2026-05-01T12:00:30Z'))).toBe('excluded: exclude[0]');
    expect(exclusionOf(r, at('2026-05-01T12:01:00Z'))).toBeUndefined();
  });

  it('marks upcoming fires an exclusion or an operator skip will skip, within the bounds', () => {
    const r = routine({
      startAt: '2026-12-23T00:00:00+01:00',
      endAt: '2026-12-27T00:00:00+01:00',
      exclude: [{ name: 'xmas', dates: ['2026-12-25'] }],
    });
    const skips = new Map([[at('2026-12-26T08:00:00Z'), { by: 'alice' }]]);
    const fires = previewFires(r, at('2026-12-01T00:00:00Z'), 10, { ...r, skips });
    expect(fires.map((f) => [f.local.slice(0, 10), f.skipped])).toEqual([
      ['2026-12-23', undefined],
      ['2026-12-24', undefined],
      ['2026-12-25', 'excluded: xmas'],
      ['2026-12-26', 'skipped-by-operator: by alice'],
    ]);
  });
});

describe('operator skips', () => {
  const r = routine({ exclude: [{ name: 'xmas', dates: ['2026-12-25'] }] });
  const now = at('2026-12-20T12:00:00Z');

  it('refuses what is no slot, naming the nearest slots', () => {
    expect(skipRefusal(r, at('2026-12-21T08:30:00Z'), now)).toEqual({
      kind: 'not-a-slot',
      before: at('2026-12-21T08:00:00Z'),
      after: at('2026-12-22T08:00:00Z'),
    });
  });

  it('refuses a past slot and an excluded one, accepts a future one', () => {
    expect(skipRefusal(r, at('2026-12-20T08:00:00Z'), now)).toEqual({ kind: 'past' });
    expect(skipRefusal(r, at('2026-12-25T08:00:00Z'), now)).toEqual({ kind: 'excluded', reason: 'excluded: xmas' });
    expect(skipRefusal(r, at('2026-12-21T08:00:00Z'), now)).toBeUndefined();
  });

  it('refuses a slot outside startAt/endAt as no slot', () => {
    const bounded = routine({ endAt: '2026-12-22T00:00:00Z' });
    expect(skipRefusal(bounded, at('2026-12-23T08:00:00Z'), now)).toEqual({
      kind: 'not-a-slot',
      before: at('2026-12-21T08:00:00Z'),
    });
  });

  it('ranks an exclusion before an operator skip', () => {
    const skips = new Map([
      [at('2026-12-25T08:00:00Z'), { by: 'bob' }],
      [at('2026-12-26T08:00:00Z'), { by: 'bob' }],
    ]);
    expect(preemptedSkip(r, at('2026-12-25T08:00:00Z'), skips)).toBe('excluded: xmas');
    expect(preemptedSkip(r, at('2026-12-26T08:00:00Z'), skips)).toBe(operatorSkipReason({ by: 'bob' }));
    expect(preemptedSkip(r, at('2026-12-27T08:00:00Z'), skips)).toBeUndefined();
  });
});
