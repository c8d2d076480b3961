import { performance } from 'node:perf_hooks';
import { Worker, type Job, type MinimalJob } from 'bullmq';
import { gateVerdict, retryDelayMs, type Queue } from '@drover/core';
import { OutOfMemoryPause } from '@drover/redis';
import { attemptOf, canceledMarker, KEY_UNLIMITED, runJobDataOf, type RunJobData } from '@drover/store';
import { type AttemptError } from './attempt-errors';
import { LeaseLostError } from './errors/lease-lost.error';
import { JobCanceledError } from './errors/job-canceled.error';
import { WorkerShutdownError } from './errors/worker-shutdown.error';
import { executeAttempt, type AttemptOutcome } from './job-executor';
import { HandlerContext, type CheckpointSink } from './handler-context';
import { runLogSink, type RunLogSink } from './run-log';
import { AttemptAbort } from './attempt-abort';
import { cancelOf } from './pending-cancels';
import { recordSpent, watchOutcomes } from './outcome-events';
import { RetentionJanitor } from './retention-janitor';
import { HeldRuns, HOLD_SKEW_MS, START_MARGIN_MS } from './held-runs';
import { refuseStaleArm, sendBackUntilSlot, startLatenessMs } from './slot-start';
import type { ConsumerDeps } from './consumer-deps';
import { recordLostAttempts, settleAttempt, type Settling } from './attempt-settle';
import { batchOf, parkedBy, settledBy } from './batch-settle';
import { concurrencyKeyOf, KeyedEnds } from './keyed-settle';

/** BullMQ backoff options naming the Worker's custom strategy (core's retry policy). */
const DROVER_BACKOFF = { type: 'drover' } as const;

const INTERRUPTED = { kind: 'interrupted' } as const;

/**
 * How often a worker checks for expired leases. The check needs two rounds (mark, then move the
 * still-unlocked), so a dead worker's run is reclaimed within about lease + 2 × this.
 */
export function stalledIntervalFor(leaseMs: number): number {
  return Math.min(Math.max(leaseMs, 500), 30_000);
}

/**
 * Consumes one queue with one BullMQ Worker configured from the queue's policy: `concurrency` per
 * process, `leaseMs` as the job lock. The cluster-wide ceiling and rate limit are enforced by
 * BullMQ from the queue's meta hash (see QueueRegistry.applyLimits).
 */
export class QueueConsumer {
  private worker?: Worker<RunJobData>;
  private fullRedis?: OutOfMemoryPause;
  /** The abort handle of every attempt running here, by run id. */
  private readonly running = new Map<string, AttemptAbort>();
  private interrupting = false;
  private janitor?: RetentionJanitor;
  /** Runs taken ahead of their slot, and the gate that keeps `concurrency` however many there are. */
  private readonly held: HeldRuns;
  private readonly logSink: RunLogSink;
  private readonly checkpointSink: CheckpointSink;
  /** What settling an attempt needs of this consumer (see settleAttempt). */
  private readonly settling: Settling;
  /** Frees keyed runs' places once they settled (see KeyedEnds). */
  private keyedEnds?: KeyedEnds;

  constructor(
    readonly policy: Queue,
    private readonly deps: ConsumerDeps,
  ) {
    this.held = new HeldRuns(policy.concurrency, deps.clock, deps.armLeadMs + HOLD_SKEW_MS);
    this.logSink = runLogSink(policy, deps);
    this.checkpointSink = { store: deps.checkpoints, clock: deps.clock, flows: deps.flows, random: deps.random };
    this.settling = { clock: deps.clock, random: deps.random, instanceId: deps.instanceId, policy };
  }

  get name(): string {
    return this.policy.name;
  }

  get consuming(): boolean {
    return (!!this.worker?.isRunning() || !!this.fullRedis?.holding) && !this.worker?.closing;
  }

  start(): void {
    const { connections, keys, instanceId, log, metrics } = this.deps;
    const queue = this.policy.name;
    metrics.consume(queue, this.deps.handlers.jobTypes());
    const worker = new Worker<RunJobData>(keys.bullQueueName(queue), this.process, {
      connection: connections.open('blocking', `worker:${queue}`),
      prefix: keys.bullPrefix,
      // Stored on every job as processedBy: the run view's `worker`.
      name: instanceId,
      concurrency: this.policy.concurrency,
      lockDuration: this.policy.leaseMs,
      stalledInterval: stalledIntervalFor(this.policy.leaseMs),
      // Drover counts an attempt lost to an expired lease itself (attemptsStarted) and parks a
      // run whose last attempt was lost; BullMQ's separate stall limit would fail it behind the
      // retry policy's back, so it is set out of reach.
      maxStalledCount: Number.MAX_SAFE_INTEGER,
      autorun: false,
      settings: { backoffStrategy: this.backoff },
      // Retention of finished runs is queue policy, applied here rather than stored on every job
      // (the age bound is swept by the RetentionJanitor: checking it on every completion costs
      // more). Failed jobs are the parked area: kept until replayed or purged (BullMQ's default).
      removeOnComplete: { count: this.policy.retention.count },
    });
    watchOutcomes(worker, queue, metrics, this.deps.stats, log, this.deps.startBuffered);
    if (this.deps.settleKeyedRun) {
      // A queue that no longer takes keys limits none: its held runs all start.
      const limit = () => this.policy.concurrencyKey?.limit ?? KEY_UNLIMITED;
      this.keyedEnds = new KeyedEnds(queue, limit, this.deps.settleKeyedRun, log);
      this.keyedEnds.attach(worker);
    }
    this.deps.handlers.forQueue(queue)?.attach?.(worker as unknown as Worker);
    this.held.attach(worker as unknown as Worker);
    worker.on('lockRenewalFailed', (ids) => ids.forEach((id) => this.abortJob(id, new LeaseLostError())));
    // A full Redis refuses every fetch: pause instead of spinning (docs/redis.md, "At its memory limit").
    this.fullRedis = new OutOfMemoryPause(worker, (fields, msg) => log.warn({ queue, ...fields }, msg));
    this.fullRedis.attach((err) => log.warn({ queue, err: err.message }, 'worker error'));
    this.worker = worker;
    worker.run().catch((err: unknown) => log.error({ queue, err }, 'worker stopped unexpectedly'));
    const { bull } = this.deps;
    this.janitor = new RetentionJanitor(
      bull.get(queue),
      connections.command,
      bull.keys.retentionSweep(queue),
      this.policy.retention.ageMs,
      instanceId,
      log,
      // The same pass heals the queue's per-key places (a lost settle or promote; see KeyedRuns).
      this.deps.repairKeys && (() => this.deps.repairKeys!(queue, this.policy.concurrencyKey?.limit ?? KEY_UNLIMITED)),
    );
    this.janitor.start();
  }

  /** Applies a concurrency change live (other policy changes need a new consumer). */
  setConcurrency(concurrency: number): void {
    this.held.setConcurrency(concurrency);
    (this.policy as { concurrency: number }).concurrency = concurrency;
  }

  /** Aborts the run if this process holds it; false otherwise. */
  cancel(id: string, reason: string): boolean {
    return this.abortJob(id, new JobCanceledError(reason));
  }

  /**
   * Aborts the attempts running here whose run has a cancel recorded (see RunStore.cancel): for
   * cancel requests published while this process was not subscribed. Returns how many it aborted.
   */
  async recheckCancels(): Promise<number> {
    const ids = [...this.running.keys()];
    if (!ids.length) return 0;
    const { bull, connections } = this.deps;
    const raw = await Promise.all(ids.map((id) => connections.command.hget(bull.keys.bullJob(this.name, id), 'data')));
    let aborted = 0;
    ids.forEach((id, i) => {
      const reason = cancelOf(raw[i]);
      if (reason !== undefined && this.cancel(id, reason)) aborted++;
    });
    return aborted;
  }

  /** Aborts the attempt of run `id` if it runs here (its signal, and its settling). */
  private abortJob(id: string, reason: Error): boolean {
    const abort = this.running.get(id);
    abort?.abort(reason);
    return !!abort;
  }

  /**
   * Stops taking runs, lets the running ones finish for up to `graceMs`, then aborts the rest:
   * they go back to the queue for another worker (their interrupted attempt does not count).
   */
  async drain(graceMs: number): Promise<void> {
    this.janitor?.stop();
    const worker = this.worker;
    if (!worker) return;
    const closing = worker.close();
    // A run held for its slot has not started: it goes back to its queue at once.
    this.held.releaseAll(new WorkerShutdownError());
    const timer = setTimeout(() => {
      this.interrupting = true;
      for (const abort of this.running.values()) abort.abort(new WorkerShutdownError());
    }, graceMs);
    try {
      await closing;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Core's retry policy as BullMQ's custom backoff strategy ({@link backoff}). */
  private readonly backoff = (attemptsMade: number, _type?: string, err?: Error, job?: MinimalJob): number => {
    const decided = (err as AttemptError | undefined)?.decision;
    if (decided?.action === 'retry') return decided.delayMs;
    const data = job ? runJobDataOf(job.data) : undefined;
    const attempt = job && data ? attemptOf({ attemptsStarted: (job as Job).attemptsStarted, data }) : attemptsMade;
    return retryDelayMs(data?.backoff ?? this.policy.backoff, attempt, this.deps.random);
  };

  // Two parameters: BullMQ creates an AbortController per job for processors that declare a
  // third; Drover makes its own, and only when a handler reads its signal (see AttemptAbort).
  private readonly process = (job: Job<RunJobData>, token?: string): Promise<unknown> => {
    const batch = this.deps.settleBatchRun && batchOf(job.data);
    const attempt = batch === undefined ? this.processRun(job, token) : this.processInBatch(job, token, batch);
    return this.keyedEnds && concurrencyKeyOf(job.data) !== undefined ? this.keyedEnds.watch(attempt, job) : attempt;
  };

  /**
   * A run of a batch: once its attempt settled the run (succeeded, canceled or parked; not a retry,
   * an interrupt or a lost lease) it is counted in its batch before BullMQ records the end, so a
   * worker that dies in between leaves the job active: it is reclaimed, runs again and is counted
   * then (once: the batch counts each run id once). An error counting it fails the attempt.
   */
  private async processInBatch(job: Job<RunJobData>, token: string | undefined, batch: string): Promise<unknown> {
    const settle = this.deps.settleBatchRun!;
    let result: unknown;
    try {
      result = await this.processRun(job, token);
    } catch (err) {
      if (parkedBy(err, job)) await settle(batch, job.id!, 'parked');
      throw err;
    }
    await settle(batch, job.id!, settledBy(result));
    return result;
  }

  private readonly processRun = async (job: Job<RunJobData>, token?: string): Promise<unknown> => {
    const { metrics, handlers, instanceId, pendingCancels, clock } = this.deps;
    const queue = this.policy.name;
    // A job a plain BullMQ producer added is a run too (`source: bullmq`, its data the payload).
    const data = runJobDataOf(job.data);
    // Not stored on the job (it would cost every queued run its compact encoding): BullMQ reads
    // the strategy from the job it holds in memory when an attempt fails.
    job.opts.backoff ??= DROVER_BACKOFF;
    const attempt = attemptOf(job);
    const maxAttempts = this.maxAttemptsOf(job, data);
    const now = clock.now();
    // A gated run reaches a worker approved, rejected, or released by its expiry (core's
    // gateVerdict): all from the data in hand, so an ungated run pays one property check.
    if (data.ap !== undefined) {
      const gated = gateVerdict(data.ap, now);
      if ('cancel' in gated) return canceledMarker(gated.cancel, now);
      if ('holdUntil' in gated) return sendBackUntilSlot(job, token, clock.toLocal(gated.holdUntil));
    }
    let held = false;
    // A slot's run starts at its slot, or a jittered one at its planned start: lateness counts from it.
    const startAt = data.startAt ?? data.scheduledFor;
    if (startAt != null && startAt + START_MARGIN_MS > now) {
      if (!this.held.mayHold(startAt, now)) return sendBackUntilSlot(job, token, clock.toLocal(startAt));
      const ended = await this.holdForSlot(job, token, startAt);
      if (ended) return ended.value;
      held = true;
    }
    const gate = this.held.enter(held);
    if (gate) await gate;
    const startedAt = held || gate ? clock.now() : now;
    metrics.activeDelta(queue, 1);
    try {
      const lateMs = startLatenessMs(job, data, startedAt);
      if (lateMs !== undefined) this.deps.stats.observeStart(queue, startAt != null ? data.routine : undefined, lateMs);
      if (lateMs !== undefined && startAt != null) metrics.fireLateness(queue, lateMs / 1000);
      recordLostAttempts(job, attempt, maxAttempts, startedAt, this.policy);
      const cancel = data.cancel?.reason ?? pendingCancels.take(job.id!);
      if (cancel !== undefined) return canceledMarker(cancel, clock.now());
      // Held from here, before anything awaits: a cancel heard from now on aborts this attempt
      // (one for a run not yet held only goes to pendingCancels, read above), and so does the
      // resync after a reconnect (recheckCancels). The attempt's handler then never starts.
      const abort = new AttemptAbort();
      this.running.set(job.id!, abort);
      let outcome: AttemptOutcome;
      try {
        // A full Redis refuses the check: it is asked again for half the lease.
        const fullRedis = { retryForMs: this.policy.leaseMs / 2, interrupted: () => this.interrupting };
        const refused = data.av === undefined ? undefined : await refuseStaleArm(job, this.deps, this.name, fullRedis);
        if (refused && refused !== 'redis-full') return refused;
        // A producer code this process has not seen yet: its name is read once (ctx.run.createdBy).
        const producers = this.deps.producers;
        if (!refused && data.by !== undefined && producers.known(data.by) === undefined) {
          await producers.load([data.by]);
        }
        const handler = handlers.forJob(queue, job.name);
        if (this.interrupting || refused) outcome = { kind: 'interrupted' };
        else if (!handler) {
          const known = handlers.jobTypes().join(', ') || '(none)';
          const error = new Error(`no handler for job type "${job.name}" on worker ${instanceId} (handlers: ${known})`);
          outcome = { kind: 'failed', failure: { kind: 'error', message: error.message }, recordKind: 'error', error };
        } else {
          // Only a run whose record says it has a checkpoint costs this read (see RunCheckpoints).
          const checkpointed = data.ck ? await this.deps.checkpoints.read(queue, job.id!) : undefined;
          const t0 = performance.now();
          const ctx = new HandlerContext(
            job,
            data,
            queue,
            attempt,
            maxAttempts,
            producers,
            abort,
            this.logSink,
            this.checkpointSink,
            checkpointed,
            token,
          );
          const timeoutMs = data.timeoutMs ?? handler.meta.timeoutMs ?? this.policy.timeoutMs;
          const pending = executeAttempt({ handler, payload: data.payload, ctx, timeoutMs, abort });
          outcome = pending instanceof Promise ? await pending : pending;
          // A run that wrote log lines settles after they are stored: who sees it end sees them all.
          const logged = ctx.logWritten();
          if (logged) await logged;
          recordSpent(job, (performance.now() - t0) / 1000);
        }
      } finally {
        this.running.delete(job.id!);
      }
      // The common case returns at once: no further promise on the hot path.
      if (outcome.kind === 'succeeded') return outcome.result ?? null;
      return await settleAttempt(job, token, outcome, { attempt, maxAttempts, startedAt }, this.settling);
    } finally {
      metrics.activeDelta(queue, -1);
      this.held.leave();
    }
  };

  /**
   * The run's attempts: the job's own `attempts` option (stored only when the run overrides its
   * queue's), else, for a job a plain BullMQ producer added, what it was given at its first
   * failure, else the queue's current maxAttempts. Set on the job in memory: BullMQ's retry check
   * reads `opts.attempts` when an attempt fails, so it agrees with Drover's decision.
   */
  private maxAttemptsOf(job: Job<RunJobData>, data: RunJobData): number {
    // BullMQ reads a job added without the option as `attempts: 0`.
    if (!job.opts.attempts) job.opts.attempts = data.maxAttempts ?? this.policy.maxAttempts;
    return job.opts.attempts;
  }

  /**
   * A run taken ahead of its slot (armed with a lead, or BullMQ promoting by a clock a little
   * ahead) waits here, active and locked, until the slot by the cluster clock. Held from the
   * start (like an attempt), so a cancel, a lost lease or shutdown ends the hold: canceled, nothing
   * recorded, or handed back to the queue; its handler never starts. Undefined: the slot has come.
   */
  private async holdForSlot(
    job: Job<RunJobData>,
    token: string | undefined,
    slot: number,
  ): Promise<{ value: unknown } | undefined> {
    const abort = new AttemptAbort();
    this.running.set(job.id!, abort);
    try {
      await this.held.hold(job.id!, slot, abort);
      return undefined;
    } catch (err) {
      this.held.letGo();
      if (err instanceof JobCanceledError) return { value: canceledMarker(err.reason, this.deps.clock.now()) };
      if (err instanceof WorkerShutdownError)
        return {
          value: await settleAttempt(
            job,
            token,
            INTERRUPTED,
            { attempt: 0, maxAttempts: 0, startedAt: 0 },
            this.settling,
          ),
        };
      throw err;
    } finally {
      this.running.delete(job.id!);
    }
  }
}
