import { DroverError } from '@drover/core';

/**
 * Thrown by `ctx.checkpoint(state)` when the state would not read back as it was written (a Date,
 * Map, class instance, function, NaN, a cycle): nothing was stored.
 */
export class CheckpointNotJsonError extends DroverError {
  get code() {
    return 'checkpoint-not-json' as const;
  }

  constructor(readonly detail: string) {
    super(`checkpoint refused: ${detail}`);
    this.name = 'CheckpointNotJsonError';
  }
}
