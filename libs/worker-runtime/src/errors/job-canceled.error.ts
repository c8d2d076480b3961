import { DroverError } from '@drover/core';

/** Abort reason when an operator (or a `replace` overlap policy) cancels a running run. */
export class JobCanceledError extends DroverError {
  get code() {
    return 'job-canceled' as const;
  }

  constructor(readonly reason: string) {
    super(`canceled: ${reason}`);
    this.name = 'JobCanceledError';
  }
}
