import { DroverError } from '@drover/core';

/** A skip of a slot that is past, already decided, already excluded, or one too many: nothing was written. */
export class SlotNotSkippableError extends DroverError {
  get code() {
    return 'slot-not-skippable' as const;
  }

  constructor(
    readonly routine: string,
    readonly slot: string,
    readonly why: string,
  ) {
    super(`slot ${slot} of routine "${routine}" cannot be skipped: ${why}`);
    this.name = 'SlotNotSkippableError';
  }
}
