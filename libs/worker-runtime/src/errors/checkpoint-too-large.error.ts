import { DroverError } from '@drover/core';

/** Thrown by `ctx.checkpoint(state)` when the state's JSON is longer than the cap: nothing was stored. */
export class CheckpointTooLargeError extends DroverError {
  get code() {
    return 'checkpoint-too-large' as const;
  }

  constructor(
    readonly size: number,
    readonly max: number,
  ) {
    super(`checkpoint refused: its state is ${size} bytes of JSON, more than the ${max} a checkpoint may hold`);
    this.name = 'CheckpointTooLargeError';
  }
}
