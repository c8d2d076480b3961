import { DroverError } from '@drover/core';

/**
 * A condition check or a candidate provider did not answer within its routine's
 * `conditionTimeoutMs`: a launch failure (backoff, then disable after `maxLaunchFailures`).
 */
export class LaunchTimeoutError extends DroverError {
  get code() {
    return 'launch-timeout' as const;
  }

  constructor(
    readonly kind: 'condition' | 'candidate provider',
    readonly check: string,
    readonly timeoutMs: number,
  ) {
    super(`${kind} "${check}" did not answer within ${timeoutMs} ms`);
    this.name = 'LaunchTimeoutError';
  }
}
