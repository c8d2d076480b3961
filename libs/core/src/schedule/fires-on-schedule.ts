import type { Routine } from '../model/routine.schema';
import { nextFire } from './next-fire';

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
 * failures, timed (not manual), and for a one-shot trigger only until its instant was handled.
 * The one answer the reconciler (which timing sources exist) and the watchdog (what is overdue)
 * share. Pure.
 */
export function firesOnSchedule(routine: Routine, state: ScheduleState): boolean {
  if (routine.status !== 'active' || state.disabledReason || routine.trigger.kind === 'manual') return false;
  if (routine.trigger.kind === 'once') return Date.parse(routine.trigger.at) > (state.lastSlot ?? -1);
  return true;
}

/**
 * The routine's next slot if it is overdue at `now` (epoch ms): due more than `toleranceMs` ago and
 * not yet handled — a lost fire, or downtime. The tolerance absorbs normal fire latency. Pure.
 */
export function overdueSlot(
  routine: Routine,
  state: ScheduleState,
  createdAt: number,
  now: number,
  toleranceMs: number,
): number | undefined {
  if (!firesOnSchedule(routine, state)) return undefined;
  const expected = nextFire(routine.trigger, state.lastSlot ?? state.since ?? createdAt);
  if (expected === undefined || now - expected <= toleranceMs) return undefined;
  return expected;
}
