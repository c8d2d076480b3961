import { parseBundle, type Routine } from '@drover/core';
import { planDue } from './plan-due';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

function every(policy: 'skip' | 'last' | 'all', extra: Record<string, unknown> = {}): Routine {
  const res = parseBundle({
    queues: [{ name: 'q' }],
    routines: [
      {
        name: 'r',
        jobType: 'noop',
        queue: 'q',
        trigger: { kind: 'interval', everyMs: 1000 },
        catchUpPolicy: policy,
        ...extra,
      },
    ],
  });
  if (!res.ok) throw new Error(res.errors.join());
  return res.bundle.routines[0]!;
}

describe('planDue', () => {
  it('fires every slot that is at most missedAfterMs late, whatever the policy', () => {
    const plan = planDue(every('skip'), NOW - 3500, NOW, 4000);
    expect(plan.fire).toEqual([
      { slot: NOW - 3000, source: 'schedule' },
      { slot: NOW - 2000, source: 'schedule' },
      { slot: NOW - 1000, source: 'schedule' },
      { slot: NOW, source: 'schedule' },
    ]);
    expect(plan.skip).toEqual([]);
    expect(plan.cursor).toBe(NOW);
  });

  it('skips missed slots under policy skip and fires the recent ones', () => {
    const plan = planDue(every('skip'), NOW - 10_000, NOW, 4000);
    expect(plan.skip.map((s) => [NOW - s.slot, s.reason])).toEqual([
      [9000, 'catch-up-skip'],
      [8000, 'catch-up-skip'],
      [7000, 'catch-up-skip'],
      [6000, 'catch-up-skip'],
      [5000, 'catch-up-skip'],
      [4000, 'catch-up-skip'],
    ]);
    expect(plan.fire.map((f) => NOW - f.slot)).toEqual([3000, 2000, 1000, 0]);
  });

  it('runs one catch-up for the newest missed slot under policy last', () => {
    const plan = planDue(every('last'), NOW - 10_000, NOW, 4000);
    expect(plan.fire.filter((f) => f.source === 'catch-up').map((f) => NOW - f.slot)).toEqual([4000]);
    expect(plan.skip.every((s) => s.reason === 'superseded')).toBe(true);
    expect(plan.skip).toHaveLength(5);
  });

  it('runs every missed slot in order under policy all, capped by maxCatchUp', () => {
    const plan = planDue(every('all', { maxCatchUp: 3 }), NOW - 10_000, NOW, 4000);
    expect(plan.fire.map((f) => [NOW - f.slot, f.source])).toEqual([
      [6000, 'catch-up'],
      [5000, 'catch-up'],
      [4000, 'catch-up'],
      [3000, 'schedule'],
      [2000, 'schedule'],
      [1000, 'schedule'],
      [0, 'schedule'],
    ]);
    expect(plan.skip.map((s) => [NOW - s.slot, s.reason])).toEqual([
      [9000, 'catch-up-capped'],
      [8000, 'catch-up-capped'],
      [7000, 'catch-up-capped'],
    ]);
  });

  it('applies the starting deadline to recent and missed slots alike', () => {
    const plan = planDue(every('all', { startingDeadlineMs: 2500 }), NOW - 6000, NOW, 4000);
    expect(plan.fire.map((f) => NOW - f.slot)).toEqual([2000, 1000, 0]);
    expect(plan.skip.map((s) => [NOW - s.slot, s.reason]).sort()).toEqual([
      [3000, 'deadline-exceeded'],
      [4000, 'deadline-exceeded'],
      [5000, 'deadline-exceeded'],
    ]);
  });

  it('does nothing when nothing is due', () => {
    expect(planDue(every('all'), NOW, NOW + 999, 4000)).toEqual({ fire: [], skip: [], cursor: NOW });
  });
});
