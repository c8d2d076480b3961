import { DroverError } from '@drover/core';

/**
 * Abort reason when the worker's shutdown grace period ends before the run did: the run is handed
 * back to its queue (another worker takes it) and the interrupted attempt does not count.
 */
export class WorkerShutdownError extends DroverError {
  get code() {
    return 'worker-shutdown' as const;
  }

  constructor() {
    super('the worker is shutting down: the run goes back to its queue');
    this.name = 'WorkerShutdownError';
  }
}
