import { DroverError } from '@drover/core';

/** Abort reason (and attempt error) when a run exceeds its `timeoutMs`. */
export class JobTimeoutError extends DroverError {
  get code() {
    return 'job-timeout' as const;
  }

  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
    this.name = 'JobTimeoutError';
  }
}
