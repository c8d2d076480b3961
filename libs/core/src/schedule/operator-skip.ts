import type { Routine } from '../model/routine.schema';
import { exclusionOf } from './exclusion';
import { nextFire, prevFire, slotsAfter } from './next-fire';

/** Most pending operator skips one routine holds (a skip is forgotten once its slot is decided). */
export const MAX_PENDING_SKIPS = 100;

/** An operator's request that one future slot not run. */
export interface OperatorSkip {
  slot: number;
  /** Who asked (the token's or session's subject). */
  by: string;
  /** When they asked (epoch ms). */
  at: number;
}

/** The reason a slot skipped by an operator is recorded with: `skipped-by-operator: by <who>`. */
export function operatorSkipReason(skip: Pick<OperatorSkip, 'by'>): string {
  return `skipped-by-operator: by ${skip.by}`;
}

/**
 * Why a slot is skipped before anything is evaluated at fire time, or undefined: an exclusion
 * calendar holds it (`excluded: <calendar>`), else an operator asked to skip it. Both come first
 * in the fire-time order (before pause, launcher backoff, condition and overlap): they are part of
 * what the schedule *is*, so they cost no condition check and never count as a launch outcome. Pure.
 */
export function preemptedSkip(
  routine: Routine,
  slot: number,
  skips?: ReadonlyMap<number, Pick<OperatorSkip, 'by'>>,
): string | undefined {
  const excluded = exclusionOf(routine, slot);
  if (excluded) return excluded;
  const skip = skips?.get(slot);
  return skip ? operatorSkipReason(skip) : undefined;
}

/** Why an operator may not skip `slot`: not a slot of the schedule (with its neighbours), or already past. */
export type SkipRefusal =
  { kind: 'not-a-slot'; before?: number; after?: number } | { kind: 'past' } | { kind: 'excluded'; reason: string };

/**
 * Whether `slot` (epoch ms) may be skipped at `now`: a slot of the routine's schedule (its triggers
 * merged, within its bounds), still ahead, not excluded already. Answers the refusal, with the nearest slots when it
 * is no slot at all, or undefined. Pure.
 */
export function skipRefusal(routine: Routine, slot: number, now: number): SkipRefusal | undefined {
  if (nextFire(routine, slot - 1) !== slot) {
    const before = prevFire(routine, slot);
    const after = nextFire(routine, slot);
    return { kind: 'not-a-slot', ...(before !== undefined && { before }), ...(after !== undefined && { after }) };
  }
  if (slot <= now) return { kind: 'past' };
  const reason = exclusionOf(routine, slot);
  return reason ? { kind: 'excluded', reason } : undefined;
}

/** How many excluded or skipped slots {@link nextRunningSlot} steps over before it gives up. */
const MAX_PREEMPTED_STEPS = 1000;

/**
 * The first slot after `afterMs` (within the routine's bounds) that no exclusion or operator skip
 * holds: when the routine will next run on its schedule. Undefined when the schedule runs out, or
 * after {@link MAX_PREEMPTED_STEPS} skipped slots in a row. Pure.
 */
export function nextRunningSlot(
  routine: Routine,
  afterMs: number,
  skips?: ReadonlyMap<number, Pick<OperatorSkip, 'by'>>,
): number | undefined {
  let steps = 0;
  for (const slot of slotsAfter(routine, afterMs)) {
    if (preemptedSkip(routine, slot, skips) === undefined) return slot;
    if (++steps >= MAX_PREEMPTED_STEPS) return undefined;
  }
  return undefined;
}
