import { DroverError } from '@drover/core';

/**
 * Thrown by a handler when retrying cannot help (bad input, a resource that is gone): the run
 * skips its remaining attempts and is parked with this error at once.
 */
export class PermanentError extends DroverError {
  get code() {
    return 'permanent' as const;
  }

  readonly permanent = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentError';
  }
}

/** True for a {@link PermanentError}, also one from another copy of this library (duck-typed). */
export function isPermanentError(err: unknown): boolean {
  return err instanceof PermanentError || (err instanceof Error && (err as { permanent?: unknown }).permanent === true);
}
