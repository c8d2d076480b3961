import { parseBundle } from '../model/bundle.schema';
import type { Routine } from '../model/routine.schema';
import { firesOnSchedule, overdueSlot } from './fires-on-schedule';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const MIN = 60_000;

function routine(extra: Record<string, unknown>): Routine {
  const res = parseBundle({
    queues: [{ name: 'q' }],
    routines: [{ name: 'r', jobType: 'noop', queue: 'q', trigger: { kind: 'interval', everyMs: MIN }, ...extra }],
  });
  if (!res.ok) throw new Error(res.errors.join());
  return res.bundle.routines[0]!;
}

describe('which routines fire on their schedule', () => {
  it('only active, enabled, timed ones; a one-shot only until its instant was handled', () => {
    expect(firesOnSchedule(routine({}), {})).toBe(true);
    expect(firesOnSchedule(routine({ status: 'paused' }), {})).toBe(false);
    expect(firesOnSchedule(routine({}), { disabledReason: 'launch failed 5 times' })).toBe(false);
    expect(firesOnSchedule(routine({ trigger: { kind: 'manual' } }), {})).toBe(false);
    const once = routine({ trigger: { kind: 'once', at: new Date(NOW).toISOString() } });
    expect(firesOnSchedule(once, { lastSlot: NOW - 1 })).toBe(true);
    expect(firesOnSchedule(once, { lastSlot: NOW })).toBe(false);
  });

  it('calls a slot overdue only past the tolerance, from the cursor, the start or the creation', () => {
    const r = routine({});
    expect(overdueSlot(r, { lastSlot: NOW }, 0, NOW + MIN + 5_000, 5_000)).toBeUndefined();
    expect(overdueSlot(r, { lastSlot: NOW }, 0, NOW + MIN + 5_001, 5_000)).toBe(NOW + MIN);
    expect(overdueSlot(r, { since: NOW }, 0, NOW + 2 * MIN, 5_000)).toBe(NOW + MIN);
    expect(overdueSlot(r, {}, NOW, NOW + 2 * MIN, 5_000)).toBe(NOW + MIN);
    expect(overdueSlot(routine({ status: 'paused' }), {}, NOW, NOW + 9 * MIN, 5_000)).toBeUndefined();
  });
});
