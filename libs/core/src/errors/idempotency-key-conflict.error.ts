import { DroverError } from './drover-error';

/**
 * Thrown by `enqueue` when its idempotency key is already bound to a run of another job type or
 * queue: the same key must mean the same operation. Nothing is written; `runId` is the bound run.
 */
export class IdempotencyKeyConflictError extends DroverError {
  get code() {
    return 'idempotency-key-conflict' as const;
  }

  constructor(
    readonly idempotencyKey: string,
    readonly runId: string,
    readonly existing: { jobType: string; queue: string },
    readonly requested: { jobType: string; queue: string },
  ) {
    super(
      `idempotency key ${JSON.stringify(idempotencyKey)} is bound to run ${runId} ` +
        `(job type "${existing.jobType}" on queue "${existing.queue}"), not to job type "${requested.jobType}" ` +
        `on queue "${requested.queue}"; use a key that names the operation, e.g. "${requested.jobType}:<entity id>"`,
    );
    this.name = 'IdempotencyKeyConflictError';
  }
}
