import { DroverError } from '@drover/core';

/** A leader-only write presented a fencing token that is no longer current: nothing was written. */
export class StaleLeaderError extends DroverError {
  get code() {
    return 'stale-leader' as const;
  }

  constructor(what: string) {
    super(`stale leader epoch refused while writing ${what}`);
    this.name = 'StaleLeaderError';
  }
}
