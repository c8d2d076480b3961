import type { RunView } from '@drover/store';
import { DroverError } from '@drover/core';

/** Thrown by `waitForRun` when the run has not ended within `timeoutMs`; `run` is its last view. */
export class RunWaitTimeoutError extends DroverError {
  get code() {
    return 'run-wait-timeout' as const;
  }

  constructor(
    readonly runId: string,
    readonly timeoutMs: number,
    readonly run: RunView,
  ) {
    super(`run ${runId} did not end within ${timeoutMs} ms; it is ${run.status}`);
    this.name = 'RunWaitTimeoutError';
  }
}
