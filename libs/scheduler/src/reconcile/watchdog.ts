import { nextFire, type Routine } from '@drover/core';
import type { RoutineState } from '@drover/store';

/**
 * Whether a routine's next slot is overdue: due more than `toleranceMs` ago and still not fired
 * or recorded. Pure; `now` in epoch ms. The tolerance absorbs normal fire latency.
 */
export function overdueSlot(
  def: Routine,
  state: RoutineState,
  createdAt: number,
  now: number,
  toleranceMs: number,
): number | undefined {
  if (def.status !== 'active' || state.disabledReason || def.trigger.kind === 'manual') return undefined;
  const cursor = state.lastSlot ?? state.since ?? createdAt;
  const expected = nextFire(def.trigger, cursor);
  if (expected === undefined || now - expected <= toleranceMs) return undefined;
  return expected;
}
