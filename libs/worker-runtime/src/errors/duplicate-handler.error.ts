import { DroverError } from '@drover/core';

/** Boot-time error: two providers declare a handler for the same job type. */
export class DuplicateHandlerError extends DroverError {
  get code() {
    return 'duplicate-handler' as const;
  }

  constructor(
    readonly jobType: string,
    readonly handlers: string[],
  ) {
    super(
      `job type "${jobType}" has ${handlers.length} handlers (${handlers.join(', ')}); a job type needs exactly one`,
    );
    this.name = 'DuplicateHandlerError';
  }
}
