import type { Job, Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { RunJobData } from '@drover/store';
import { parkedBy } from './batch-settle';

/** Frees run `id`'s place under its concurrency key and starts the key's next held runs (KeyedRuns.settle). */
export type SettleKeyedRun = (queue: string, key: string, limit: number, id: string) => Promise<unknown>;

/**
 * The concurrency key a job's run carries, if any: a field test on data already in memory, so a
 * run without one costs no round trip (and a plain BullMQ job's data is not Drover's unless it holds a payload).
 */
export function concurrencyKeyOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || !('ckey' in data) || !('payload' in data)) return undefined;
  const key = (data as RunJobData).ckey;
  return typeof key === 'string' ? key : undefined;
}

/**
 * Frees a keyed run's place once its attempt settled the run (succeeded, canceled or parked; a
 * retry, an interrupt or a lost lease keeps the place) and BullMQ recorded its end: never before,
 * so the key's next run cannot start while this one still counts as active. A worker that dies
 * between the two leaves the place taken until the janitor's repair sees the run ended.
 */
export class KeyedEnds {
  /** Runs whose attempt settled them here, waiting for BullMQ to record the end. */
  private readonly ending = new Set<string>();

  constructor(
    private readonly queue: string,
    private readonly limit: () => number,
    private readonly settle: SettleKeyedRun,
    private readonly log: Logger,
  ) {}

  attach(worker: Worker<RunJobData>): void {
    worker.on('completed', (job) => this.ended(job));
    worker.on('failed', (job) => job && this.ended(job));
  }

  /** Watches an attempt of a keyed run: notes it when it settles its run. */
  watch<T>(attempt: Promise<T>, job: Job<RunJobData>): Promise<T> {
    return attempt.then(
      (result) => {
        this.ending.add(job.id!);
        return result;
      },
      (err: unknown) => {
        if (parkedBy(err, job)) this.ending.add(job.id!);
        throw err;
      },
    );
  }

  private ended(job: Job<RunJobData>): void {
    if (!this.ending.delete(job.id!)) return;
    const key = concurrencyKeyOf(job.data);
    if (key === undefined) return;
    this.settle(this.queue, key, this.limit(), job.id!).catch((err: unknown) =>
      this.log.warn({ queue: this.queue, run: job.id, err }, 'could not free the run’s key place; the repair does'),
    );
  }
}
