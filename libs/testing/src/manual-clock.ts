import { Clock } from '@drover/redis';

/**
 * The `Clock` tests hand to services instead of the cluster clock: it reads `t`, which only the
 * test moves (set it, or {@link advance} it), so what a service decides "now" is never a race.
 */
export class ManualClock extends Clock {
  constructor(public t: number) {
    super();
  }

  now(): number {
    return this.t;
  }

  /** Moves the clock `ms` forward and answers the new time. */
  advance(ms: number): number {
    return (this.t += ms);
  }
}
