import { DroverError } from './drover-error';

/** Thrown by `waitForRun` for a run id Drover does not know (never created, or removed by retention). */
export class RunNotFoundError extends DroverError {
  get code() {
    return 'run-not-found' as const;
  }

  constructor(readonly runId: string) {
    super(`run ${runId} does not exist (never created, or removed by its queue's retention)`);
    this.name = 'RunNotFoundError';
  }
}
