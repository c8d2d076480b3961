/** Thrown by `upsertRoutine` for a definition core refuses; `errors` name each field. Nothing is written. */
export class InvalidRoutineError extends Error {
  constructor(readonly errors: string[]) {
    super(`invalid routine: ${errors.join('; ')}`);
    this.name = 'InvalidRoutineError';
  }
}
