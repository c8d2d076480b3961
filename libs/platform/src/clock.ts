/**
 * The one time source of a process. Services take it by injection so tests and the pure core see
 * the same notion of "now"; only this file reads the wall clock.
 */
export abstract class Clock {
  abstract now(): number;
}

export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}
