import type { Job } from 'bullmq';
import { decodeCheckpoint, encodeCheckpoint } from '@drover/core';
import type { Clock } from '@drover/redis';
import { runJobDataOf, type ProducerCodes, type RunCheckpoints, type RunFlows, type RunJobData } from '@drover/store';
import type { AttemptAbort } from './attempt-abort';
import { CheckpointNotJsonError } from './errors/checkpoint-not-json.error';
import { CheckpointTooLargeError } from './errors/checkpoint-too-large.error';
import { WaitingForChildrenError } from './errors/waiting-for-children.error';
import { childFlows, type ChildRun } from './flow-children';
import { LeaseLostError } from './errors/lease-lost.error';
import type { FlowChild, JobContext, RunInfo } from './job-context';
import { RunLog, type RunLogSink } from './run-log';
import { runLogger, type RunLogger } from './run-logger';

/** Where an attempt's checkpoints go, and where a parent reads its children (one per consumer). */
export interface CheckpointSink {
  store: Pick<RunCheckpoints, 'save'>;
  clock: Clock;
  /** A flow's children: read by their parent (RunFlows.outcomes), added by a running one (RunFlows.addChildren). */
  flows?: Pick<RunFlows, 'outcomes' | 'addChildren'>;
  /** Draws the ids of the children a handler adds. */
  random?: () => number;
}

/**
 * The context handed to a handler. Its parts are made on first use only (the run info, the
 * run-bound logger, the AbortSignal): at tens of thousands of jobs per second each allocation is
 * measurable, and a simple handler touches none of them.
 */
export class HandlerContext implements JobContext {
  private logger?: RunLogger;
  private info?: RunInfo;
  private lines?: RunLog;
  /** The last checkpoint's state, decoded on first read (a handler that never reads it pays nothing). */
  private resumed?: { state: unknown };

  /**
   * @param job the run's BullMQ job, and `token` its lock: for a queue handler that works on the
   *   job itself (a @nestjs/bullmq processor), never for `@JobHandler`s (they get `payload`).
   * @param data the run record of the job's data (see runJobDataOf).
   * @param checkpointed the run's stored checkpoint when this attempt began (read only for a run
   *   whose record says it has one).
   */
  constructor(
    readonly job: Job,
    private readonly data: RunJobData,
    private readonly queue: string,
    private readonly attempt: number,
    private readonly maxAttempts: number,
    private readonly producers: Pick<ProducerCodes, 'nameOf'>,
    private readonly abort: AttemptAbort,
    private readonly logs: RunLogSink,
    private readonly checkpoints: CheckpointSink,
    private checkpointed: string | undefined,
    readonly token?: string,
  ) {}

  get run(): RunInfo {
    this.info ??= runInfoOf(this.job, this.data, this.queue, this.attempt, this.maxAttempts, this.producers);
    return this.info;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get log(): RunLogger {
    if (this.logger) return this.logger;
    const child = this.logs.log.child({
      runId: this.run.id,
      queue: this.run.queue,
      jobType: this.run.jobType,
      attempt: this.run.attempt,
      ...(this.run.routine !== null && { routine: this.run.routine }),
    });
    // Only a run that had an attempt before may already hold lines (see RunLog).
    const write = (message: string, fields?: Record<string, unknown>) =>
      (this.lines ??= new RunLog(this.logs, this.job.id!, this.job.attemptsStarted > 1)).write(message, fields);
    this.logger = runLogger(child, write);
    return this.logger;
  }

  /** Settles once the run's log lines written so far are stored; undefined when it wrote none (see RunLog.written). */
  logWritten(): Promise<unknown> | undefined {
    return this.lines?.written();
  }

  async progress(value: number | object): Promise<void> {
    await this.job.updateProgress(value);
  }

  get lastCheckpoint(): unknown {
    if (this.checkpointed === undefined) return undefined;
    this.resumed ??= { state: decodeCheckpoint(this.checkpointed)?.state };
    return this.resumed.state;
  }

  async checkpoint(state: unknown): Promise<void> {
    const encoded = encodeCheckpoint(state, this.checkpoints.clock.now(), this.attempt);
    if ('problem' in encoded) {
      throw encoded.problem === 'too-large'
        ? new CheckpointTooLargeError(encoded.size, encoded.max)
        : new CheckpointNotJsonError(encoded.detail);
    }
    const saved =
      this.token !== undefined &&
      (await this.checkpoints.store.save(this.queue, this.job.id!, this.token, encoded.raw, this.job));
    if (!saved) {
      // The run's lock is gone or another attempt's: this one must stop, as on a failed lease renewal.
      const lost = new LeaseLostError();
      this.abort.abort(lost);
      throw lost;
    }
    this.checkpointed = encoded.raw;
    this.resumed = undefined;
  }

  children(): Promise<FlowChild[]> {
    // Only a parent's record lists children: any other run reads nothing.
    if (!this.data.fc?.length || !this.checkpoints.flows) return Promise.resolve([]);
    return this.checkpoints.flows.outcomes(this.job);
  }

  async addChildren(children: ChildRun[]): Promise<string[]> {
    const { flows, random, clock } = this.checkpoints;
    if (!flows || !random || this.token === undefined)
      throw new Error('ctx.addChildren: this run cannot take children');
    const made = childFlows(children, { now: clock.now(), random, createdBy: this.run.createdBy ?? '' });
    await flows.addChildren(this.queue, this.job, made);
    this.data.fc = runJobDataOf(this.job.data).fc;
    return made.map((f) => f.run.id);
  }

  async waitForChildren(): Promise<void> {
    const data = runJobDataOf(this.job.data);
    if (!data.fc?.length || this.token === undefined) return;
    // The attempt ends without settling the run: like a hand-back, it does not count as one, so
    // the run's handler starts again as the same attempt once its children finished.
    await this.job.updateData({ ...data, interrupts: (data.interrupts ?? 0) + 1 });
    if (await this.job.moveToWaitingChildren(this.token)) {
      throw new WaitingForChildrenError((await this.job.getDependenciesCount({ unprocessed: true })).unprocessed ?? 0);
    }
    // Every child had finished already: the attempt goes on.
    await this.job.updateData(data);
  }
}

export function runInfoOf(
  job: Job,
  d: RunJobData,
  queue: string,
  attempt: number,
  maxAttempts: number,
  producers: Pick<ProducerCodes, 'nameOf'>,
): RunInfo {
  const info: RunInfo = {
    id: job.id!,
    routine: d.routine ?? null,
    jobType: job.name,
    queue,
    source: d.source ?? 'api',
    attempt,
    maxAttempts,
    scheduledFor: d.scheduledFor ?? null,
    createdAt: job.timestamp,
  };
  // Runs written before producer codes carry the name in full.
  if (d.createdBy) info.createdBy = d.createdBy;
  else if (d.by !== undefined) info.createdBy = producers.nameOf(d.by);
  if (d.replayOf) info.replayOf = d.replayOf;
  return info;
}
