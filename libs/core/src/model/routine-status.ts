// Imports nothing (served to the CLI and console by `../words`).

/** A routine's own status (a routine the scheduler disabled after launch failures stays `active`). */
export const ROUTINE_STATUSES = ['active', 'paused', 'archived'] as const;
export type RoutineStatus = (typeof ROUTINE_STATUSES)[number];

/**
 * The statuses routines are counted under (the `drover_routines` gauge): an `active` routine its
 * launcher disabled counts as `disabled`, never also as `active`; a paused or archived one under its own.
 */
export const ROUTINE_COUNT_STATUSES = [...ROUTINE_STATUSES, 'disabled'] as const;
export type RoutineCountStatus = (typeof ROUTINE_COUNT_STATUSES)[number];

/** The status a routine is counted under (the Lua scripts that keep the counts apply the same rule). */
export function countedStatus(status: RoutineStatus, disabledReason: string | undefined): RoutineCountStatus {
  return status === 'active' && disabledReason ? 'disabled' : status;
}
