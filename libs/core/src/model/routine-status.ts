// Imports nothing (served to the CLI and console by `../words`).

/** A routine's own status (a routine the scheduler disabled after launch failures stays `active`). */
export const ROUTINE_STATUSES = ['active', 'paused', 'archived'] as const;
export type RoutineStatus = (typeof ROUTINE_STATUSES)[number];
