/** A leader-only write presented a fencing token that is no longer current: nothing was written. */
export class StaleLeaderError extends Error {
  constructor(what: string) {
    super(`stale leader epoch refused while writing ${what}`);
    this.name = 'StaleLeaderError';
  }
}
