import { DroverError } from './drover-error';

/** Thrown when a write names the version it expects (If-Match) and the stored one differs. */
export class RoutineVersionConflictError extends DroverError {
  get code() {
    return 'routine-version-conflict' as const;
  }

  constructor(
    readonly routine: string,
    readonly expected: number,
    readonly current: number,
  ) {
    super(
      current === 0
        ? `routine "${routine}" does not exist (expected version ${expected})`
        : `routine "${routine}" is at version ${current}, not ${expected}: it changed meanwhile`,
    );
    this.name = 'RoutineVersionConflictError';
  }
}
