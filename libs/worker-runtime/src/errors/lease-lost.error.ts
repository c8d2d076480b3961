import { DroverError } from '@drover/core';

/**
 * Abort reason when this worker could not renew the run's lease: the run may already be running
 * elsewhere, so this attempt stops and records nothing (the new holder owns the run).
 */
export class LeaseLostError extends DroverError {
  get code() {
    return 'lease-lost' as const;
  }

  constructor() {
    super('lost the lease on this run (it may be running on another worker)');
    this.name = 'LeaseLostError';
  }
}
