import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DelayedError, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { LOGGER } from '@drover/logger';
import { ReadinessRegistry } from '@drover/platform';
import { Clock, DroverKeys, NotReplicatedError, OutOfMemoryPause, RedisConnections } from '@drover/redis';
import { FIRE_KEEP, FIRE_RETRY, FIRES_QUEUE, fireOfJob, type FireJobData } from '@drover/store';
import { SCHEDULER_OPTIONS, type SchedulerOptions } from '../scheduler-options';
import { cronRepeatStrategy } from './cron-repeat';
import { Dispatcher } from './dispatcher.service';

/**
 * How soon a fire whose claim the replicas do not have yet (`DROVER_REDIS_WAIT_REPLICAS`) is asked
 * again: a failover's resync takes seconds, more than the fire's own attempts last.
 */
export const NOT_REPLICATED_RETRY_MS = 1_000;

/**
 * Every scheduler replica consumes the fires queue; BullMQ hands each fire to one of them.
 * Consuming promptly matters: a Job Scheduler creates its next fire only when this one starts.
 */
@Injectable()
export class FiresConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private worker?: Worker<FireJobData>;
  private fullRedis?: OutOfMemoryPause;

  constructor(
    private readonly conns: RedisConnections,
    private readonly keys: DroverKeys,
    private readonly dispatcher: Dispatcher,
    private readonly readiness: ReadinessRegistry,
    @Inject(SCHEDULER_OPTIONS) private readonly opts: SchedulerOptions,
    @Inject(LOGGER) private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = new Worker<FireJobData>(
      this.keys.bullQueueName(FIRES_QUEUE),
      (job, token) => this.process(job, token),
      {
        connection: this.conns.open('blocking', 'fires-worker'),
        prefix: this.keys.bullPrefix,
        concurrency: this.opts.fireConcurrency,
        // Short lease and frequent stalled checks: a fire held by a dead replica is retried within
        // ~3 s, well inside a routine's misfire grace, so a crash never turns a slot into a missed one.
        lockDuration: 2_000,
        stalledInterval: 1_000,
        maxStalledCount: 10,
        // For fires added without options (every Job Scheduler's, see FIRE_JOB_OPTS).
        ...FIRE_KEEP,
        // Moves each cron scheduler on to core's next slot, as the queue that wrote it does.
        settings: { repeatStrategy: cronRepeatStrategy },
      },
    );
    this.worker.on('failed', (job, err) =>
      this.log.warn({ fire: job?.id, err: err.message }, 'fire failed; BullMQ will retry it'),
    );
    // A full Redis refuses every fetch: pause instead of spinning (docs/redis.md, "At its memory limit").
    this.fullRedis = new OutOfMemoryPause(this.worker, (fields, msg) => this.log.warn(fields, msg));
    this.fullRedis.attach((err) => this.log.warn({ err: err.message }, 'fires worker error'));
    this.readiness.register('fires', () => {
      if (!this.worker?.isRunning() && !this.fullRedis?.holding) throw new Error('not consuming the fires queue');
    });
  }

  async onApplicationShutdown(): Promise<void> {
    // Lets in-flight fires finish: a half-dispatched fire would only be retried, but why waste it.
    // Not past the connections being abandoned (Redis unreachable after the grace period): nothing
    // can finish then, and BullMQ's close may wait for its main loop forever.
    await Promise.race([this.worker?.close(), this.conns.abandoned]);
  }

  private async process(job: Job<FireJobData>, token?: string): Promise<string> {
    // A Job Scheduler's fire is stored without options: BullMQ decides a retry from the job it
    // holds in memory, so setting them here retries it like any other fire.
    // (BullMQ reads a missing `attempts` as 0.)
    if (!job.opts.attempts) job.opts.attempts = FIRE_RETRY.attempts;
    job.opts.backoff ??= { ...FIRE_RETRY.backoff };
    const request = fireOfJob(job.id, job.data?.lagMs);
    if (!request || !job.data?.routine) return 'ignored';
    const retry = job.attemptsMade > 0 || (job.stalledCounter ?? 0) > 0 || (job.attemptsStarted ?? 1) > 1;
    let res: Awaited<ReturnType<Dispatcher['dispatch']>>;
    try {
      res = await this.dispatcher.dispatch(job.data.routine, request, { retry });
    } catch (err) {
      // The slot's claim stays pending until the replicas have it (SlotClaims.claim): the fire asks
      // again each second without using up an attempt, until they do, or until the slot's pending
      // window has passed and the retry records it skipped (`claim-abandoned`). Five attempts half a
      // second apart would end before a failover's resync, leaving the slot with no record at all.
      if (!(err instanceof NotReplicatedError) || token === undefined) throw err;
      this.log.warn({ fire: job.id, err: err.message }, 'fire waits for the replicas to have its claim');
      await job.moveToDelayed(this.clock.toLocal(this.clock.now() + NOT_REPLICATED_RETRY_MS), token);
      throw new DelayedError();
    }
    if (!res) return 'gone';
    return `enqueued ${res.enqueued.length}, skipped ${res.skipped.length}, failed ${res.failed.length}, duplicates ${res.duplicates}`;
  }
}
