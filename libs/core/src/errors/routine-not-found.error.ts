import { DroverError } from './drover-error';

/** Thrown for an operation on a routine that does not exist. */
export class RoutineNotFoundError extends DroverError {
  get code() {
    return 'routine-not-found' as const;
  }

  constructor(readonly routine: string) {
    super(`routine "${routine}" does not exist`);
    this.name = 'RoutineNotFoundError';
  }
}
