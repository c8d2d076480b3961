/**
 * Paces a loop to `ratePerSecond` actions: each {@link take} reserves one action and answers how
 * long to wait before doing it. Up to `burst` actions may go at once after an idle spell (so
 * timer slop is made up for); beyond that they are spaced `1000 / ratePerSecond` ms apart.
 * Reservations queue up: a caller that always waits the answered time keeps the rate. Pure: the
 * caller passes the time (epoch ms).
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    now: number,
  ) {
    if (!(ratePerSecond > 0) || !(burst >= 1)) throw new RangeError('ratePerSecond must be > 0 and burst >= 1');
    this.tokens = burst;
    this.last = now;
  }

  /** Reserves one action; the answer (ms, ≥ 0) is how long to wait before it may happen. */
  take(now: number): number {
    const elapsed = Math.max(0, now - this.last);
    this.last = Math.max(this.last, now);
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.ratePerSecond) / 1000);
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens * 1000) / this.ratePerSecond);
  }
}

/** The burst a bulk operation allows at `ratePerSecond`: a tenth of a second's worth, at least one. */
export const burstFor = (ratePerSecond: number): number => Math.max(1, Math.floor(ratePerSecond / 10));
