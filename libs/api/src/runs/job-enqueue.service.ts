import { Injectable } from '@nestjs/common';
import { DroverClient } from '@drover/client';
import { DEFAULT_QUEUE, type Priority } from '@drover/core';
import { Clock } from '@drover/redis';
import { QueueRegistry, RoutineStore, RunStore, UnknownQueueError } from '@drover/store';
import { ProblemError } from '../http/problem';
import type { Principal } from '../auth/principal';
import { API_JOB_CONTRACTS } from './api-job-contracts';

export interface AdHocJob {
  jobType: string;
  payload: unknown;
  queue?: string;
  /** Epoch ms. */
  runAt?: number;
  delayMs?: number;
  priority?: Priority;
  maxAttempts?: number;
}

/**
 * Ad-hoc runs through the client's own enqueue (its option checks, payload checks and
 * idempotency), on this process's stores, in the name of the caller's token.
 */
@Injectable()
export class JobEnqueue {
  constructor(
    private readonly runs: RunStore,
    private readonly routines: RoutineStore,
    private readonly registry: QueueRegistry,
    private readonly clock: Clock,
  ) {}

  /**
   * @throws ProblemError 400 naming `body.queue` for a queue that is not defined; the client's
   *   InvalidPayloadError, InvalidOptionsError and IdempotencyKeyConflictError (mapped by mapError)
   */
  async enqueue(job: AdHocJob, principal: Principal, idempotencyKey?: string): Promise<string> {
    const queue = job.queue ?? DEFAULT_QUEUE;
    await this.requireQueue(queue, job.queue === undefined);
    const client = new DroverClient(
      { runs: this.runs, routines: this.routines, registry: this.registry, clock: this.clock },
      { defaultQueue: DEFAULT_QUEUE, name: principal.name, contracts: API_JOB_CONTRACTS, strictJobTypes: false },
    );
    return client.enqueue(job.jobType, job.payload, {
      queue,
      ...(job.runAt !== undefined && { runAt: job.runAt }),
      ...(job.delayMs !== undefined && { delayMs: job.delayMs }),
      ...(job.priority !== undefined && { priority: job.priority }),
      ...(job.maxAttempts !== undefined && { maxAttempts: job.maxAttempts }),
      ...(idempotencyKey !== undefined && { idempotencyKey }),
    });
  }

  /** An unknown queue is a bad field of the request (400), not a missing resource (404). */
  private async requireQueue(queue: string, defaulted: boolean): Promise<void> {
    try {
      await this.registry.require(queue);
    } catch (err) {
      if (!(err instanceof UnknownQueueError)) throw err;
      const message = defaulted ? `is not given and the default queue "${queue}" is not defined` : err.message;
      throw new ProblemError(400, `invalid request: body.queue ${message}`, [{ path: 'body.queue', message }]);
    }
  }
}
