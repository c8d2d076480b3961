import { DroverError } from './drover-error';

/**
 * Thrown by `enqueue` with a job type name that no registered contract declares, when the module
 * was configured with `strictJobTypes: true`; nothing is written.
 */
export class UnknownJobTypeError extends DroverError {
  get code() {
    return 'unknown-job-type' as const;
  }

  constructor(
    readonly jobType: string,
    readonly known: string[],
  ) {
    super(
      `job type "${jobType}" has no registered contract; registered: ${known.length ? [...known].sort().join(', ') : '(none)'} ` +
        '(pass its contract to DroverModule `contracts`, or enqueue with the contract itself)',
    );
    this.name = 'UnknownJobTypeError';
  }
}
