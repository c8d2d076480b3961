import type { Job } from 'bullmq';
import type { BatchOutcome } from '@drover/core';
import { isCanceledMarker, type RunJobData } from '@drover/store';
import type { AttemptError } from './attempt-errors';

/** Counts a run of a batch as settled (BatchStore.settle); the batch's last one enqueues its callbacks. */
export type SettleBatchRun = (batch: string, runId: string, outcome: BatchOutcome) => Promise<unknown>;

/**
 * The batch a job's run belongs to, if any. A field test on data already in memory: a run without a
 * batch costs no round trip (and a plain BullMQ job's own `batch` field is never taken for one: its
 * data is not Drover's unless it holds a payload).
 */
export function batchOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || !('batch' in data) || !('payload' in data)) return undefined;
  const batch = (data as RunJobData).batch;
  return typeof batch === 'string' ? batch : undefined;
}

/** How an attempt that ended with `result` settled its run: succeeded or canceled (a completed job always settles). */
export const settledBy = (result: unknown): BatchOutcome => (isCanceledMarker(result) ? 'canceled' : 'succeeded');

/**
 * Whether an attempt that threw parked its run: Drover's decision says so; an error without one
 * (thrown outside the handler) parks it when BullMQ has no attempt left to retry with. A retry,
 * an interrupt (handed back) or a lost lease does not settle the run.
 */
export function parkedBy(err: unknown, job: Job<RunJobData>): boolean {
  const decision = (err as AttemptError | undefined)?.decision;
  if (decision) return decision.action === 'park';
  if (!(err instanceof Error) || err.name === 'WaitingError' || err.name === 'LeaseLostError') return false;
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}
