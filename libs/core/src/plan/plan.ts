import { planQueues } from './plan-queues';
import { planRoutines } from './plan-routines';
import type { PlanResult, PlanState } from './plan.types';

/**
 * What would happen at `now` (epoch ms): which routine slots fire (after catch-up, launcher backoff and overlap
 * policy), which slots are skipped, which runs would be leased next in each queue under its
 * `concurrency × workers` / `globalConcurrency` ceiling, and why everything else waits.
 * Invariants: never writes or mutates `state`; the same input gives the same output (all lists sorted);
 * per queue, `running + starts` never exceeds the ceiling.
 */
export function plan(now: number, state: PlanState): PlanResult {
  const routines = planRoutines(state, now);
  const queues = planQueues(state, routines.fires, now);
  return {
    now,
    fires: routines.fires,
    skips: routines.skips,
    starts: queues.starts,
    waiting: [...routines.waiting, ...queues.waiting],
    upcoming: routines.upcoming,
  };
}
