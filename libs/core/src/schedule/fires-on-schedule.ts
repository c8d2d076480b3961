import type { Routine } from '../model/routine.schema';
import { nextFire } from './next-fire';
import { slotBounds, withinBounds } from './slot-bounds';

/** What decides whether a routine's trigger is timing fires: its launcher's verdict and its cursor. */
export interface ScheduleState {
  disabledReason?: string;
  /** The newest slot handled (epoch ms). */
  lastSlot?: number;
  /** When the cursor started (creation or resume), if no slot was handled yet. */
  since?: number;
}

/**
 * Whether a routine should be firing on its schedule: active, not disabled by repeated launch
 * failures, timed (not manual), for a one-shot trigger only until its instant was handled, and
 * with an `endAt` only while a slot remains after its cursor (past it, it is spent like a `once`).
 * The one answer the reconciler (which timing sources exist) and the watchdog (what is overdue)
 * share. Pure.
 */
export function firesOnSchedule(routine: Routine, state: ScheduleState): boolean {
  const t = routine.trigger;
  if (routine.status !== 'active' || state.disabledReason || t?.kind === 'manual') return false;
  const bounds = slotBounds(routine);
  if (t?.kind === 'once') return Date.parse(t.at) > (state.lastSlot ?? -1) && withinBounds(bounds, Date.parse(t.at));
  const cursor = state.lastSlot ?? state.since;
  if (bounds?.endMs !== undefined && cursor !== undefined) return nextFire(routine, cursor) !== undefined;
  return true;
}

/**
 * The slot the routine should handle next: the first after its cursor (the newest slot handled,
 * else when the cursor started, else its creation). Depends on nothing else, so a caller checking
 * many routines often may keep it until the trigger or the cursor moves. Pure.
 */
export function expectedSlot(routine: Routine, state: ScheduleState, createdAt: number): number | undefined {
  return nextFire(routine, state.lastSlot ?? state.since ?? createdAt);
}

/**
 * The routine's next slot if it is overdue at `now` (epoch ms): due more than `toleranceMs` ago and
 * not yet handled — a lost fire, or downtime. The tolerance absorbs normal fire latency.
 * `expected` gives {@link expectedSlot} (a caller may have it kept). Pure.
 */
export function overdueSlot(
  routine: Routine,
  state: ScheduleState,
  createdAt: number,
  now: number,
  toleranceMs: number,
  expected: () => number | undefined = () => expectedSlot(routine, state, createdAt),
): number | undefined {
  if (!firesOnSchedule(routine, state)) return undefined;
  const slot = expected();
  if (slot === undefined || now - slot <= toleranceMs) return undefined;
  return slot;
}
