import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { LOGGER } from '@drover/logger';
import { ReadinessRegistry } from '@drover/platform';
import { DroverKeys, OutOfMemoryPause, RedisConnections } from '@drover/redis';
import { FIRE_KEEP, FIRE_RETRY, FIRES_QUEUE, fireOfJob, type FireJobData } from '@drover/store';
import { SCHEDULER_OPTIONS, type SchedulerOptions } from '../scheduler-options';
import { cronRepeatStrategy } from './cron-repeat';
import { Dispatcher } from './dispatcher.service';

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
  ) {}

  onApplicationBootstrap(): void {
    this.worker = new Worker<FireJobData>(this.keys.bullQueueName(FIRES_QUEUE), (job) => this.process(job), {
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
    });
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
    await this.worker?.close();
  }

  private async process(job: Job<FireJobData>): Promise<string> {
    // A Job Scheduler's fire is stored without options: BullMQ decides a retry from the job it
    // holds in memory, so setting them here retries it like any other fire.
    // (BullMQ reads a missing `attempts` as 0.)
    if (!job.opts.attempts) job.opts.attempts = FIRE_RETRY.attempts;
    job.opts.backoff ??= { ...FIRE_RETRY.backoff };
    const request = fireOfJob(job.id, job.data?.lagMs);
    if (!request || !job.data?.routine) return 'ignored';
    const retry = job.attemptsMade > 0 || (job.stalledCounter ?? 0) > 0 || (job.attemptsStarted ?? 1) > 1;
    const res = await this.dispatcher.dispatch(job.data.routine, request, { retry });
    if (!res) return 'gone';
    return `enqueued ${res.enqueued.length}, skipped ${res.skipped.length}, failed ${res.failed.length}, duplicates ${res.duplicates}`;
  }
}
