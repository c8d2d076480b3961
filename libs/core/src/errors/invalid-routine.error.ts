import { DroverError } from './drover-error';

/** Thrown by `upsertRoutine` for a definition core refuses; `errors` name each field. Nothing is written. */
export class InvalidRoutineError extends DroverError {
  get code() {
    return 'invalid-routine' as const;
  }

  constructor(readonly errors: string[]) {
    super(`invalid routine: ${errors.join('; ')}`);
    this.name = 'InvalidRoutineError';
  }
}
