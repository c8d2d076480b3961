import { DroverError } from '@drover/core';

/** An override for a selector routine's key that still has a run queued or running: nothing was written. */
export class DuplicateOverrideError extends DroverError {
  get code() {
    return 'duplicate-override' as const;
  }

  constructor(
    readonly routine: string,
    readonly key: string,
    /** The run that is still pending for that key. */
    readonly pendingRun?: string,
  ) {
    super(
      `routine "${routine}" already has a pending override for key ${JSON.stringify(key)}` +
        (pendingRun ? ` (run ${pendingRun})` : ''),
    );
    this.name = 'DuplicateOverrideError';
  }
}
