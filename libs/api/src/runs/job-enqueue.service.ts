import { Injectable } from '@nestjs/common';
import {
  DEFAULT_QUEUE,
  IdempotencyKeyConflictError,
  InvalidOptionsError,
  priorityValue,
  secureRandomSource,
  validatePayload,
  type Priority,
} from '@drover/core';
import { Clock } from '@drover/redis';
import {
  adHocRun,
  enqueueAdHoc,
  enqueueBatch,
  enqueueFlow,
  jobTypeIssue,
  type FlowItem,
  type NewRun,
  QueueRegistry,
  RunStore,
  startOf,
  UnknownQueueError,
} from '@drover/store';
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
  /** The run's concurrency key, for a queue that takes it `from: option`. */
  concurrencyKey?: string;
}

/**
 * Ad-hoc runs made by the store's run maker, as the client makes them (the same payload checks,
 * defaults and idempotency), in the name of the caller's token. The request's fields were checked
 * by the route's schema.
 */
@Injectable()
export class JobEnqueue {
  private readonly random = secureRandomSource();

  constructor(
    private readonly runs: RunStore,
    private readonly registry: QueueRegistry,
    private readonly clock: Clock,
  ) {}

  /**
   * @throws ProblemError 400 naming `body.queue` for a queue that is not defined; InvalidPayloadError,
   *   InvalidOptionsError and IdempotencyKeyConflictError (mapped by mapError)
   */
  async enqueue(job: AdHocJob, principal: Principal, idempotencyKey?: string): Promise<string> {
    const run = await this.build(job, principal, idempotencyKey);
    const outcome = await enqueueAdHoc(this.runs, {
      run,
      ...(idempotencyKey !== undefined && { key: idempotencyKey }),
    });
    if (outcome.conflict) {
      const c = outcome.conflict;
      throw new IdempotencyKeyConflictError(c.idempotencyKey, c.runId, c.existing, c.requested);
    }
    return outcome.ids;
  }

  /**
   * Enqueues a batch of runs with its callbacks (see BatchStore); answers the batch id. Every run is
   * checked before anything is written. `field` names where a run's queue sits in the request.
   */
  async enqueueBatch(jobs: readonly AdHocJob[], callbacks: unknown, principal: Principal): Promise<string> {
    const runs = [];
    for (const [i, job] of jobs.entries())
      runs.push({ run: await this.build(job, principal, undefined, `body.runs.${i}.queue`) });
    return enqueueBatch(this.runs.batches, runs, callbacks, {
      now: this.clock.now(),
      random: this.random,
      defaultQueue: DEFAULT_QUEUE,
      createdBy: principal.name,
    });
  }

  /**
   * Enqueues a flow given as a list (`runs[0]` the top run, each other naming an earlier run as its
   * parent; the route's schema checked that); answers the run ids in that order. Every run is checked
   * before anything is written; an issue names the run as `body.runs.<i>`.
   */
  async enqueueFlow(
    jobs: readonly (AdHocJob & { parent?: number; onFailure?: 'fail' | 'ignore' })[],
    principal: Principal,
  ): Promise<string[]> {
    const items: FlowItem[] = [];
    for (const [i, job] of jobs.entries()) {
      const run = await this.build(job, principal, undefined, `body.runs.${i}.queue`);
      items.push({ item: { run }, at: `body.runs.${i}`, ...(job.onFailure && { onFailure: job.onFailure }) });
    }
    jobs.forEach((job, i) => {
      if (i === 0) return;
      const parent = items[job.parent!]!;
      (parent.children ??= []).push(items[i]!);
    });
    await enqueueFlow(this.runs.flows, items[0]!);
    return items.map((f) => f.item.run.id);
  }

  /** Checks one request and builds its run; nothing is written. */
  private async build(
    job: AdHocJob,
    principal: Principal,
    idempotencyKey?: string,
    field = 'body.queue',
  ): Promise<NewRun> {
    const queue = job.queue ?? DEFAULT_QUEUE;
    await this.requireQueue(queue, job.queue === undefined, field);
    const issue = jobTypeIssue(job.jobType);
    if (issue) throw new InvalidOptionsError('enqueue', [issue]);
    const now = this.clock.now();
    const contract = API_JOB_CONTRACTS.get(job.jobType);
    if (contract) await validatePayload(job.jobType, contract, job.payload);
    else validatePayload(job.jobType, undefined, job.payload);
    const run = adHocRun(
      {
        jobType: job.jobType,
        payload: job.payload,
        queue,
        ...startOf(job, now),
        priority: priorityValue(job.priority),
        ...(job.maxAttempts !== undefined && { maxAttempts: job.maxAttempts }),
        ...(idempotencyKey !== undefined && { idempotencyKey }),
        ...(contract && { contract }),
        createdBy: principal.name,
      },
      { now, random: this.random, defaultQueue: DEFAULT_QUEUE },
    );
    if (job.concurrencyKey !== undefined) run.concurrencyKey = job.concurrencyKey;
    return run;
  }

  /** An unknown queue is a bad field of the request (400), not a missing resource (404). */
  private async requireQueue(queue: string, defaulted: boolean, field: string): Promise<void> {
    try {
      await this.registry.require(queue);
    } catch (err) {
      if (!(err instanceof UnknownQueueError)) throw err;
      const message = defaulted ? `is not given and the default queue "${queue}" is not defined` : err.message;
      throw new ProblemError(400, `invalid request: ${field} ${message}`, [{ path: field, message }]);
    }
  }
}
