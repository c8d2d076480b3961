/**
 * The one time source of a process. Services take it by injection so tests and the pure core see
 * the same notion of "now"; only this file reads the wall clock.
 */
export abstract class Clock {
  /** Epoch ms, as the cluster agrees on it. */
  abstract now(): number;

  /**
   * The instant `t` (epoch ms, cluster time) on this machine's own clock, for the libraries that
   * compare with it themselves (BullMQ promotes delayed jobs by the worker's local clock).
   */
  toLocal(t: number): number {
    return t;
  }
}

/** This machine's wall clock, taken as the cluster's (tests, tools without Redis). */
export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}
