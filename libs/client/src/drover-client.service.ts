import {
  IdempotencyKeyConflictError,
  InvalidOptionsError,
  InvalidRoutineError,
  pauseFromRequest,
  RedisOutOfMemoryError,
  RunNotFoundError,
  secureRandomSource,
  UnknownJobTypeError,
  validatePayload,
  validateRoutine,
  type JobContract,
  type PayloadInputOf,
  type Random,
  type ResultOf,
  type RoutineInput,
  type RoutineRecord,
} from '@drover/core';
import {
  adHocRun,
  clearOverrides,
  enqueueAdHoc,
  enqueueBatch,
  enqueueFlow,
  type FlowItem,
  enqueueAdHocMany,
  jobTypeIssue,
  triggerRoutine,
  type AdHocItem,
  type AdHocOutcome,
  type CancelResult,
  type QueueRegistry,
  type RoutineStore,
  type RunStore,
} from '@drover/store';
import type { Clock } from '@drover/redis';
import {
  resolveEnqueueOptions,
  resolveListOptions,
  resolveWaitOptions,
  type EnqueueOptions,
  type ListRunsOptions,
  type ResolvedEnqueue,
  type WaitOptions,
} from './call-options';
import type { DroverFlowIds, FlowNode } from './drover-flow';
import type { DroverRun, RunId } from './drover-run';
import type { BatchOptions, DroverBatch } from './drover-batch';
import { RunWaitTimeoutError } from './errors/run-wait-timeout.error';
import type { ResolvedDroverOptions } from './resolve-options';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any contract, whatever its payload types
type AnyContract = JobContract<any, any, any>;

/**
 * What the client works on: the stores and the cluster clock (Redis TIME, like every Drover
 * process). A {@link DroverConnection} in a producer; the api hands its own (Nest-provided) stores
 * and clock, so both enqueue through one code path.
 */
export interface ClientBackend {
  runs: RunStore;
  routines: RoutineStore;
  registry: QueueRegistry;
  clock: Clock;
}

/** One run of {@link DroverClient.enqueueMany}: what `enqueue` takes, as one object. */
export interface EnqueueItem {
  /** A contract, or a job type name (validated against its registered contract, if any). */
  job: string | AnyContract;
  payload: unknown;
  options?: EnqueueOptions;
}

/** What `upsertRoutine` did. */
export interface UpsertRoutineResult {
  outcome: 'created' | 'updated' | 'unchanged';
  routine: RoutineRecord;
}

/**
 * Enqueue, track and trigger Drover work from any NestJS service. Injected by `DroverModule`;
 * every method talks to Redis through the store, exactly as the scheduler and api do.
 */
export class DroverClient {
  private readonly now: () => number;

  /** `random` draws run ids (default: a secure source); time is `connection.clock`. */
  constructor(
    private readonly connection: ClientBackend,
    private readonly options: Pick<ResolvedDroverOptions, 'defaultQueue' | 'name' | 'contracts' | 'strictJobTypes'>,
    private readonly random: Random = secureRandomSource(),
  ) {
    this.now = () => connection.clock.now();
  }

  /**
   * Enqueues a run of a job type and resolves with its id once the run exists (status `queued`,
   * or `scheduled` with `runAt`/`delayMs`). With a contract (or a job type name whose contract is
   * registered) the payload is validated first; nothing is written when it fails.
   *
   * @throws InvalidPayloadError, InvalidOptionsError, UnknownJobTypeError, UnknownQueueError,
   *   IdempotencyKeyConflictError; RedisOutOfMemoryError when Redis is at its memory limit (nothing written)
   */
  enqueue<C extends AnyContract>(
    job: C,
    payload: PayloadInputOf<C>,
    opts?: EnqueueOptions,
  ): Promise<RunId<ResultOf<C>>>;
  enqueue(jobType: string, payload: unknown, opts?: EnqueueOptions): Promise<RunId>;
  enqueue(job: string | AnyContract, payload: unknown, opts?: EnqueueOptions): Promise<RunId> {
    try {
      const contract = this.contractFor(job);
      // Without a contract nothing here waits: the run goes straight to the store (the hot path).
      if (contract) return this.prepare(job, contract, payload, opts).then((p) => this.write(p));
      const now = this.now();
      return this.write(this.build(job as string, undefined, payload, resolveEnqueueOptions(opts, now), now));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private write(item: AdHocItem): Promise<RunId> {
    return enqueueAdHoc(this.connection.runs, item).then(orConflict, RedisOutOfMemoryError.rethrow);
  }

  /**
   * Enqueues many runs at once (one existence check and one BullMQ `addBulk` per queue) and
   * resolves with their ids in order. Every payload and option is checked first: when one fails,
   * nothing is written. An item whose idempotency key names an existing run answers that run's id,
   * like {@link enqueue}.
   *
   * @throws InvalidPayloadError, InvalidOptionsError, UnknownJobTypeError, UnknownQueueError,
   *   IdempotencyKeyConflictError (checked before anything is written); RedisOutOfMemoryError when
   *   Redis is at its memory limit (then no run of the call was written)
   */
  async enqueueMany(items: readonly EnqueueItem[]): Promise<RunId[]> {
    const prepared = await Promise.all(
      items.map((i) => this.prepare(i.job, this.contractFor(i.job), i.payload, i.options)),
    );
    return orConflict(await enqueueAdHocMany(this.connection.runs, prepared).catch(RedisOutOfMemoryError.rethrow));
  }

  /**
   * Enqueues a batch of runs and resolves with the batch id once its record and every run exist.
   * The batch counts each run once when it settles (succeeded, parked or canceled; a retry is not
   * settled); when the last one settles, `onComplete` is enqueued, and `onSuccess` too if every run
   * succeeded, each exactly once, with `{ batch, on, total, succeeded, parked, canceled, payload }`.
   * Every payload and option is checked first: when one fails, nothing is written.
   *
   * @throws InvalidPayloadError, InvalidOptionsError (also for 0 or over 10,000 runs, or a run with
   *   an idempotency key), UnknownJobTypeError, UnknownQueueError; RedisOutOfMemoryError
   */
  async enqueueBatch(items: readonly EnqueueItem[], opts: BatchOptions = {}): Promise<string> {
    const prepared = await Promise.all(
      items.map((i) => this.prepare(i.job, this.contractFor(i.job), i.payload, i.options)),
    );
    return enqueueBatch(this.connection.runs.batches, prepared, opts, {
      now: this.now(),
      random: this.random,
      defaultQueue: this.options.defaultQueue,
      createdBy: this.options.name,
    });
  }

  /**
   * Enqueues a flow: the top run starts once every child finished, each child once its own children
   * did. Children may be on any queues (on Redis Cluster: the top run's queue). A parked child parks
   * its parent without running it, unless it has `onFailure: 'ignore'`; a canceled child counts as
   * finished. The parent's handler reads its children's results with `ctx.children()`. Canceling a
   * parent cancels its children that have not ended. Every run is checked first, and the whole flow
   * is written in one transaction: on any error nothing is written.
   *
   * @throws InvalidPayloadError, InvalidOptionsError (a run with an idempotency key, a delayed or
   *   approval-gated parent, a queue with concurrency keys, over 1,000 runs or 10 levels),
   *   UnknownJobTypeError, UnknownQueueError; RedisOutOfMemoryError
   */
  async enqueueFlow(flow: FlowNode): Promise<DroverFlowIds> {
    const prepare = async (node: FlowNode): Promise<FlowItem> => ({
      item: await this.prepare(node.job, this.contractFor(node.job), node.payload, node.options),
      ...(node.onFailure && { onFailure: node.onFailure }),
      ...(node.children?.length && { children: await Promise.all(node.children.map(prepare)) }),
    });
    return enqueueFlow(this.connection.runs.flows, await prepare(flow));
  }

  /** The batch's progress and callbacks, or null (never made, or expired with its runs' retention). */
  getBatch(id: string): Promise<DroverBatch | null> {
    return this.connection.runs.batches.get(id);
  }

  /** Checks one enqueue request and builds its run; nothing is written. */
  private async prepare(
    job: string | AnyContract,
    contract: JobContract | undefined,
    payload: unknown,
    opts: EnqueueOptions | undefined,
  ): Promise<AdHocItem> {
    const jobType = typeof job === 'string' ? job : job.jobType;
    const now = this.now();
    const o = resolveEnqueueOptions(opts, now);
    // A contract's schema may refine asynchronously: checked before the run is built.
    if (contract) await validatePayload(jobType, contract, payload);
    return this.build(jobType, contract, payload, o, now);
  }

  /** Builds the run of a request whose contract (if any) has passed; checks the rest synchronously. */
  private build(
    jobType: string,
    contract: JobContract | undefined,
    payload: unknown,
    o: ResolvedEnqueue,
    now: number,
  ): AdHocItem {
    if (!contract) validatePayload(jobType, undefined, payload);
    // Named fields, not spreads: spreading option objects of varying shapes cost the hot path
    // several microseconds per call (measured with the as-deployed bench).
    const run = adHocRun(
      {
        jobType,
        payload,
        createdBy: this.options.name,
        contract,
        queue: o.queue,
        priority: o.priority,
        maxAttempts: o.maxAttempts,
        idempotencyKey: o.idempotencyKey,
        delayMs: o.delayMs,
        scheduledFor: o.scheduledFor,
      },
      { now, random: this.random, defaultQueue: this.options.defaultQueue },
    );
    if (o.concurrencyKey !== undefined) run.concurrencyKey = o.concurrencyKey;
    return o.idempotencyKey === undefined ? { run } : { run, key: o.idempotencyKey };
  }

  private contractFor(job: string | AnyContract): JobContract | undefined {
    if (typeof job !== 'string') return job;
    const issue = jobTypeIssue(job);
    if (issue) throw new InvalidOptionsError('enqueue', [issue]);
    const contract = this.options.contracts.get(job);
    if (!contract && this.options.strictJobTypes)
      throw new UnknownJobTypeError(job, [...this.options.contracts.keys()]);
    return contract;
  }

  /** The run, or null if Drover does not know it (never created, or removed by retention). */
  async getRun<R = unknown>(id: RunId<R>): Promise<DroverRun<R> | null> {
    return (await this.connection.runs.get(id)) as DroverRun<R> | null;
  }

  /**
   * Runs, newest first: a routine's (its newest 1000, skipped and canceled ones included), or
   * those held in the queues (all defined queues, or `queue`).
   */
  async listRuns(opts: ListRunsOptions = {}): Promise<DroverRun[]> {
    const o = resolveListOptions(opts);
    if (o.routine === undefined) return this.connection.runs.listRecent(o);
    const runs = await this.connection.runs.listByRoutine(o.routine, { limit: o.limit, status: o.status });
    return o.queue ? runs.filter((r) => r.queue === o.queue) : runs;
  }

  /**
   * Resolves with the run once it ended — `succeeded`, `failed`, `canceled`, `skipped` or `parked`
   * (check `status`; a failure does not reject). Driven by the queue's event stream, not polling.
   *
   * @throws RunNotFoundError for an unknown id; RunWaitTimeoutError (with the last view) after `timeoutMs`.
   */
  async waitForRun<R = unknown>(id: RunId<R>, opts: WaitOptions = {}): Promise<DroverRun<R>> {
    const { timeoutMs } = resolveWaitOptions(opts);
    const { run, timedOut } = await this.connection.runs.waitForTerminal(id, timeoutMs);
    if (!run) throw new RunNotFoundError(id);
    if (timedOut) throw new RunWaitTimeoutError(id, timeoutMs, run);
    return run as DroverRun<R>;
  }

  /**
   * Cancels a run: a queued or scheduled run is removed and never starts (`canceled`); a running
   * one is aborted through its handler's signal (`cancel-requested`); an ended one is left alone
   * (`already-final`). Unknown ids answer `not-found`.
   */
  cancel(id: string, opts: { reason?: string } = {}): Promise<CancelResult> {
    return this.connection.runs
      .cancel(id, opts.reason ?? `canceled by ${this.options.name}`)
      .catch(RedisOutOfMemoryError.rethrow);
  }

  /**
   * Approves a run awaiting approval (its queue or routine requires one): it goes to its queue, and
   * its `approval` records this client's name (or `opts.by`) and when. Approval is per run.
   *
   * @throws RunNotFoundError; NotAwaitingApprovalError (`not-awaiting-approval`) when the run does not wait.
   */
  approveRun(id: string, opts: { reason?: string; by?: string } = {}): Promise<DroverRun> {
    return this.connection.runs.approvals.approve(id, this.approvalAsk(opts)).catch(RedisOutOfMemoryError.rethrow);
  }

  /** Rejects a run awaiting approval: it never starts and ends `canceled` (see {@link approveRun}). */
  rejectRun(id: string, opts: { reason?: string; by?: string } = {}): Promise<DroverRun> {
    return this.connection.runs.approvals.reject(id, this.approvalAsk(opts)).catch(RedisOutOfMemoryError.rethrow);
  }

  private approvalAsk(opts: { reason?: string; by?: string }) {
    return { by: opts.by ?? this.options.name, ...(opts.reason !== undefined && { reason: opts.reason }) };
  }

  /**
   * Runs a routine now (source `manual`, served before scheduled work), even when it is paused;
   * `payload` replaces the routine's own for this run. With `key`, for a selector routine: an
   * override for that candidate key, served before the automatic candidates.
   *
   * @throws RoutineNotFoundError; RoutineNotTriggerableError for an archived routine (or a key for
   * a routine that is not a selector); DuplicateOverrideError while an override for the key is pending.
   */
  async trigger(routine: string, opts: { payload?: unknown; key?: string } = {}): Promise<RunId> {
    const { id } = await triggerRoutine({ routines: this.connection.routines, runs: this.connection.runs }, routine, {
      now: this.now(),
      random: this.random,
      by: this.options.name,
      ...(opts.payload !== undefined && { payload: opts.payload }),
      ...(opts.key !== undefined && { key: opts.key }),
    }).catch(RedisOutOfMemoryError.rethrow);
    return id;
  }

  /** Cancels a selector routine's overrides that have not started yet; answers their run ids. */
  clearOverrides(routine: string): Promise<string[]> {
    return clearOverrides({ runs: this.connection.runs }, routine).catch(RedisOutOfMemoryError.rethrow);
  }

  /**
   * Creates or replaces a routine (validated by core; defaults filled in). The scheduler picks the
   * change up at once. A routine made here is API-made: applying a policy file leaves it alone.
   *
   * @throws InvalidRoutineError naming each bad field; nothing is written.
   */
  async upsertRoutine(def: RoutineInput): Promise<UpsertRoutineResult> {
    const queues = (await this.connection.registry.list()).map((q) => q.def.name);
    const res = validateRoutine(def, queues);
    if (!res.ok) throw new InvalidRoutineError(res.errors);
    const outcome = await this.connection.routines
      .upsert(res.routine, 'api', this.now())
      .catch(RedisOutOfMemoryError.rethrow);
    return { outcome, routine: (await this.connection.routines.get(res.routine.name))! };
  }

  /**
   * Pauses a routine: it fires nothing until resumed (manual triggers still run). `note` says why;
   * `until` (a Date) resumes it by itself then.
   * @throws RoutineNotFoundError, InvalidOptionsError (an `until` that is not in the future),
   * RoutineArchivedError (archived routines are unarchived through the API)
   */
  pauseRoutine(name: string, opts: { note?: string; until?: Date } = {}): Promise<RoutineRecord> {
    const now = this.now();
    const res = pauseFromRequest({ note: opts.note, until: opts.until?.getTime() }, now, 'client');
    if (!res.ok) return Promise.reject(new InvalidOptionsError('pauseRoutine', [res.error]));
    return this.connection.routines.pause(name, res.pause, now).catch(RedisOutOfMemoryError.rethrow);
  }

  /** Resumes a routine; slots it slept through are not caught up. @throws RoutineNotFoundError, RoutineArchivedError */
  resumeRoutine(name: string): Promise<RoutineRecord> {
    return this.connection.routines.resume(name, this.now()).catch(RedisOutOfMemoryError.rethrow);
  }

  /** The routine's definition and bookkeeping, or null. */
  async getRoutine(name: string): Promise<RoutineRecord | null> {
    return (await this.connection.routines.get(name)) ?? null;
  }
}

/** The ids, or the producer's error for an idempotency key bound to another operation. */
function orConflict<T>(outcome: AdHocOutcome<T>): T {
  if (outcome.conflict) {
    const c = outcome.conflict;
    throw new IdempotencyKeyConflictError(c.idempotencyKey, c.runId, c.existing, c.requested);
  }
  return outcome.ids;
}
