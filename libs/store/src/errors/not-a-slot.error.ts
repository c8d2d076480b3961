import { DroverError } from '@drover/core';

/** An instant that is no slot of the routine's schedule (within its bounds), with the nearest slots. */
export class NotASlotError extends DroverError {
  get code() {
    return 'not-a-slot' as const;
  }

  constructor(
    readonly routine: string,
    readonly slot: string,
    /** The nearest slots before and after it, ISO 8601, when there are any. */
    readonly before?: string,
    readonly after?: string,
  ) {
    const near = [before && `the slot before is ${before}`, after && `the slot after is ${after}`].filter(Boolean);
    super(
      `${slot} is not a slot of routine "${routine}"` +
        (near.length ? `; ${near.join(', ')}` : '; its schedule has no slot near it'),
    );
    this.name = 'NotASlotError';
  }
}
