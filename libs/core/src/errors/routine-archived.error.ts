import { DroverError } from './drover-error';

/**
 * Thrown for an act an archived routine refuses until it is unarchived: a pause or a resume (an
 * archived routine neither fires nor waits to). A manual trigger or backfill of one answers
 * `RoutineNotTriggerableError` instead.
 */
export class RoutineArchivedError extends DroverError {
  get code() {
    return 'routine-archived' as const;
  }

  constructor(
    readonly routine: string,
    readonly action: string,
  ) {
    super(`routine "${routine}" is archived: it cannot be ${action}; unarchive it first`);
    this.name = 'RoutineArchivedError';
  }
}
