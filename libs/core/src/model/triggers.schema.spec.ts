import { parseBundle } from './bundle.schema';
import { validateRoutine } from './routine-validation';

const base = { name: 'office', jobType: 'noop', queue: 'default' };
const weekdays = { kind: 'cron', cron: '0 9 * * 1-5', tz: 'Europe/Berlin', name: 'weekdays' };
const weekends = { kind: 'cron', cron: '0 12 * * 6,0' };
const errorsOf = (raw: unknown, opts = {}) => {
  const res = parseBundle({ routines: [raw] }, { knownQueues: ['default'], ...opts });
  return res.ok ? [] : res.errors;
};

describe('a routine’s triggers list', () => {
  it('accepts 2-8 recurring triggers, names optional, and keeps them as written', () => {
    const res = validateRoutine({ ...base, triggers: [weekdays, weekends] }, ['default']);
    expect(res).toMatchObject({ ok: true, routine: { triggers: [weekdays, weekends] } });
    expect(res.ok && res.routine.trigger).toBeUndefined();
  });

  it('wants exactly one of trigger and triggers, and names the field', () => {
    expect(errorsOf({ ...base, trigger: weekends, triggers: [weekdays, weekends] })).toEqual([
      'routines[office].triggers: a routine has either "trigger" or "triggers", not both; move the trigger into the list',
    ]);
    expect(errorsOf(base)).toEqual([
      expect.stringMatching(/^routines\[office\]\.trigger: required: a routine needs "trigger" \(one\) or "triggers"/),
    ]);
  });

  it('refuses once and manual in a list, one or more than eight triggers, and names the index', () => {
    expect(errorsOf({ ...base, triggers: [weekdays, { kind: 'once', at: '2026-12-24T18:00:00Z' }] })).toEqual([
      expect.stringMatching(
        /^routines\[office\]\.triggers\[1\]\.kind: kind must be one of "cron", "interval" in a triggers list/,
      ),
    ]);
    expect(errorsOf({ ...base, triggers: [weekdays] })).toEqual([
      expect.stringMatching(/^routines\[office\]\.triggers: must list 2 to 8 triggers; use "trigger" for one/),
    ]);
    const nine = Array.from({ length: 9 }, (_, i) => ({ kind: 'cron', cron: `${i} 3 * * *` }));
    expect(errorsOf({ ...base, triggers: nine })).toEqual([
      expect.stringMatching(/triggers: must list 2 to 8 triggers/),
    ]);
    expect(errorsOf({ ...base, triggers: [weekdays, { kind: 'cron', cron: '61 * * * *' }] })).toEqual([
      expect.stringMatching(
        /^routines\[office\]\.triggers\[1\]\.cron: "61 \* \* \* \*" is not a valid cron expression/,
      ),
    ]);
  });

  it('hints at a misspelt field of a listed trigger', () => {
    expect(errorsOf({ ...base, triggers: [weekdays, { ...weekends, tzz: 'UTC' }] })).toEqual([
      expect.stringMatching(/^routines\[office\]\.triggers\[1\]: unknown field "tzz".*"tz"/),
    ]);
  });

  it('wants unique names that cannot read as an index', () => {
    expect(errorsOf({ ...base, triggers: [weekdays, { ...weekends, name: 'weekdays' }] })).toEqual([
      'routines[office].triggers[1].name: "weekdays" is already the name of triggers[0]; trigger names must be unique',
    ]);
    expect(errorsOf({ ...base, triggers: [weekdays, { ...weekends, name: '1' }] })).toEqual([
      expect.stringMatching(/^routines\[office\]\.triggers\[1\]\.name: "1" is not a valid trigger name/),
    ]);
  });

  it('holds the merged stream to the fire-rate floor: two grids closer than it are refused, shared instants are one slot', () => {
    const a = { kind: 'interval', everyMs: 60_000 };
    expect(errorsOf({ ...base, triggers: [a, { ...a, offsetMs: 500 }] })).toEqual([
      'routines[office].triggers: two triggers fire 500 ms apart; the floor is one fire per 1 s (slots at the same instant are one)',
    ]);
    // Every 2 min and every 3 min share every 6th minute; otherwise a minute apart: fine.
    expect(
      errorsOf({
        ...base,
        triggers: [
          { kind: 'interval', everyMs: 120_000 },
          { kind: 'interval', everyMs: 180_000 },
        ],
      }),
    ).toEqual([]);
    // Cron slots lie on whole seconds: an interval off that grid comes closer than 1 s to them.
    const everyMinute = { kind: 'cron', cron: '* * * * *' };
    expect(
      errorsOf({ ...base, triggers: [everyMinute, { kind: 'interval', everyMs: 60_000, offsetMs: 300 }] }),
    ).toEqual([
      'routines[office].triggers: two triggers fire 300 ms apart; the floor is one fire per 1 s (slots at the same instant are one)',
    ]);
    expect(
      errorsOf({ ...base, triggers: [everyMinute, { kind: 'interval', everyMs: 60_000, offsetMs: 1000 }] }),
    ).toEqual([]);
    // A cron trigger is checked against the others over a sample of the merged stream.
    const cron = { kind: 'cron', cron: '*/5 * * * * *' };
    expect(
      errorsOf(
        { ...base, triggers: [cron, { kind: 'interval', everyMs: 5000, offsetMs: 2000 }] },
        { minFireIntervalMs: 3000 },
      ),
    ).toEqual([
      'routines[office].triggers: two triggers fire 2 s apart; the floor is one fire per 3 s (slots at the same instant are one)',
    ]);
  });
});
