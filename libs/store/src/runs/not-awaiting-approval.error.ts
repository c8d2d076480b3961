import { DroverError } from '@drover/core';

/**
 * Thrown when an approve or reject names a run that is not awaiting approval: it needs none, it
 * was approved or rejected already, or its expiry released it.
 */
export class NotAwaitingApprovalError extends DroverError {
  get code() {
    return 'not-awaiting-approval' as const;
  }

  constructor(
    readonly id: string,
    readonly status: string,
    readonly why: 'not-gated' | 'not-waiting',
  ) {
    super(
      why === 'not-gated'
        ? `run ${id} needs no approval (it is ${status})`
        : `run ${id} is no longer awaiting approval (it is ${status})`,
    );
    this.name = 'NotAwaitingApprovalError';
  }
}
