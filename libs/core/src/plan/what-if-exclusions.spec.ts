import { parseBundle } from '../model/bundle.schema';
import type { Routine, RoutineInput } from '../model/routine.schema';
import type { PlanState, RoutineState } from './plan.types';
import { whatIf } from './what-if';

const AT = Date.parse('2026-12-25T14:00:00Z');
const HOUR = 3_600_000;

function routine(over: Partial<RoutineInput>): Routine {
  const r = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name: 'r', jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: HOUR }, ...over }],
  });
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.bundle.routines[0]!;
}
const queue = parseBundle({ queues: [{ name: 'default' }] });
if (!queue.ok) throw new Error('queue');
const state = (rs: RoutineState): PlanState => ({
  queues: [{ queue: queue.bundle.queues[0]!, running: 0, waiting: [] }],
  routines: [rs],
});
const one = (rs: RoutineState) => whatIf(AT, { state: state(rs), changes: new Map([['r', 'updated']]) }).routines[0]!;

describe('whatIf with exclusions, operator skips and bounds', () => {
  it('reports an excluded due slot and an operator-skipped one as such, whatever catch-up made of them', () => {
    const r = one({
      routine: routine({ catchUpPolicy: 'all', exclude: [{ name: 'lunch', cron: '* 12 * * *' }] }),
      lastSlot: AT - 3 * HOUR,
      skips: new Map([[AT - HOUR, { by: 'alice' }]]),
    });
    expect(r.skips.map((s) => [(AT - s.slot) / HOUR, s.reason])).toEqual([
      [2, 'excluded'],
      [1, 'skipped-by-operator'],
    ]);
    expect(r.fires.map((f) => (AT - f.slot) / HOUR)).toEqual([0]);
  });

  it('lists the next fires only up to endAt, marking the excluded ones', () => {
    const r = one({
      routine: routine({ endAt: '2026-12-25T17:00:00Z', exclude: [{ cron: '* 16 * * *' }] }),
      lastSlot: AT,
    });
    expect(r.next.map((n) => [(n.at - AT) / HOUR, n.skipped])).toEqual([
      [1, undefined],
      [2, 'excluded: exclude[0]'],
      [3, undefined],
    ]);
  });

  it('fires nothing before startAt', () => {
    const r = one({ routine: routine({ startAt: '2026-12-25T16:00:00Z' }), lastSlot: AT - 5 * HOUR });
    expect(r.fires).toEqual([]);
    expect(r.skips).toEqual([]);
    expect(r.next[0]!.at).toBe(AT + 2 * HOUR);
  });
});
