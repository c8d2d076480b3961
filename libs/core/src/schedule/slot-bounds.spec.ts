import { routineSchema, type RoutineInput } from '../model/routine.schema';
import { catchUp } from '../policy/catch-up.policy';
import { expectedSlot, firesOnSchedule } from './fires-on-schedule';
import { nextFire, prevFire, slotsBetween } from './next-fire';
import { slotBounds, withinBounds } from './slot-bounds';

const HOUR = 3_600_000;
const routine = (over: Partial<RoutineInput> = {}) =>
  routineSchema().parse({
    name: 'hourly',
    jobType: 'noop',
    queue: 'default',
    trigger: { kind: 'interval', everyMs: HOUR },
    startAt: '1970-01-01T03:00:00Z',
    endAt: '1970-01-01T06:00:00+00:00',
    ...over,
  });

describe('startAt / endAt', () => {
  const r = routine();
  const b = slotBounds(r)!;

  it('parses the bounds and includes both ends', () => {
    expect(b).toEqual({ startMs: 3 * HOUR, endMs: 6 * HOUR });
    expect([2, 3, 6, 7].map((h) => withinBounds(b, h * HOUR))).toEqual([false, true, true, false]);
    expect(slotBounds(routine({ startAt: undefined, endAt: undefined }))).toBeUndefined();
  });

  it('cuts the routine slot stream both ways', () => {
    expect(nextFire(r, 0)).toBe(3 * HOUR);
    expect(nextFire(r, 6 * HOUR)).toBeUndefined();
    expect(prevFire(r, 100 * HOUR)).toBe(6 * HOUR);
    expect(prevFire(r, 3 * HOUR)).toBeUndefined();
    expect(slotsBetween(r, 0, 100 * HOUR, 100).slots).toEqual([3, 4, 5, 6].map((h) => h * HOUR));
    // A trigger alone has no bounds.
    expect(nextFire(r.trigger!, 0)).toBe(HOUR);
  });

  it('catch-up sees no slot outside the bounds', () => {
    const cu = catchUp({ trigger: r, lastSlot: 0, now: 100 * HOUR, policy: 'all' });
    expect(cu.fire.map((f) => f.slot)).toEqual([3, 4, 5, 6].map((h) => h * HOUR));
    expect(cu.cursor).toBe(6 * HOUR);
  });

  it('is spent once its cursor passed the last slot before endAt, like a handled once', () => {
    const state = { lastSlot: 5 * HOUR };
    expect(firesOnSchedule(r, state)).toBe(true);
    expect(expectedSlot(r, state, 0)).toBe(6 * HOUR);
    expect(firesOnSchedule(r, { lastSlot: 6 * HOUR })).toBe(false);
    expect(expectedSlot(r, { lastSlot: 6 * HOUR }, 0)).toBeUndefined();
    // Before the first slot the watchdog expects startAt's slot, not one before it.
    expect(expectedSlot(r, {}, 0)).toBe(3 * HOUR);
  });

  it('cuts the merged stream of a triggers list the same way', () => {
    const two = routine({
      trigger: undefined,
      triggers: [
        { kind: 'interval', everyMs: 2 * HOUR },
        { kind: 'interval', everyMs: 3 * HOUR },
      ],
    });
    expect(slotsBetween(two, 0, 100 * HOUR, 100).slots).toEqual([3, 4, 6].map((h) => h * HOUR));
  });

  it('a once outside the bounds never fires', () => {
    const once = routine({ trigger: { kind: 'once', at: '1970-01-01T08:00:00Z' } });
    expect(firesOnSchedule(once, {})).toBe(false);
  });
});
