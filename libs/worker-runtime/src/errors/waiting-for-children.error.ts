import { DroverError } from '@drover/core';

/**
 * Thrown by `ctx.waitForChildren()` once the run waits for the children it added: it ends this
 * attempt without settling the run (BullMQ holds it in waiting-children), and the run's handler
 * starts again, as the same attempt, once they finished. A handler lets it through (rethrow it
 * from a `catch`).
 */
export class WaitingForChildrenError extends DroverError {
  get code() {
    return 'waiting-for-children' as const;
  }

  constructor(readonly pending: number) {
    super(`the run waits for ${pending} child run${pending === 1 ? '' : 's'}; its handler starts again after them`);
    this.name = 'WaitingForChildrenError';
  }
}
