import { WaitingChildrenError, WaitingError, type Job } from 'bullmq';
import { afterFailure, type Queue } from '@drover/core';
import { canceledMarker, encodeAttempt, runJobDataOf, type AttemptRecord, type RunJobData } from '@drover/store';
import { attemptError, lostAttempts } from './attempt-errors';
import { LeaseLostError } from './errors/lease-lost.error';
import type { AttemptOutcome } from './job-executor';
import type { ConsumerDeps } from './consumer-deps';

/** What ending an attempt needs of its consumer: the queue's policy and the worker's clock, randomness, name. */
export interface Settling extends Pick<ConsumerDeps, 'clock' | 'random' | 'instanceId'> {
  policy: Queue;
}

/**
 * Attempts lost to an expired lease are added to the attempt log (written with this attempt's
 * end). If the lost one was the run's last attempt, the run is parked now, without running again.
 */
export function recordLostAttempts(
  job: Job<RunJobData>,
  attempt: number,
  maxAttempts: number,
  now: number,
  policy: Queue,
): void {
  if (attempt - 1 <= job.attemptsMade) return; // none lost: the usual case, without allocating
  const records = lostAttempts(job, attempt, now);
  const last = records.pop();
  if (!last) return;
  job.stacktrace = [...(job.stacktrace ?? []), ...records.map(encodeAttempt)];
  if (attempt > maxAttempts) {
    const failure = { kind: 'lease-expired' } as const;
    const backoff = runJobDataOf(job.data).backoff ?? policy.backoff;
    throw attemptError(last, afterFailure({ attempt: last.attempt, maxAttempts }, failure, { backoff }, now));
  }
  job.stacktrace.push(encodeAttempt(last));
}

export async function settleAttempt(
  job: Job<RunJobData>,
  token: string | undefined,
  outcome: AttemptOutcome,
  { attempt, maxAttempts, startedAt }: { attempt: number; maxAttempts: number; startedAt: number },
  deps: Settling,
): Promise<unknown> {
  switch (outcome.kind) {
    case 'succeeded':
      return outcome.result ?? null;
    case 'canceled':
      return canceledMarker(outcome.reason, deps.clock.now());
    case 'interrupted': {
      const data = runJobDataOf(job.data);
      await job.updateData({ ...data, interrupts: (data.interrupts ?? 0) + 1 });
      await job.moveToWait(token);
      // Tells BullMQ the job was moved already (it neither completes nor fails it).
      throw new WaitingError();
    }
    case 'lease-lost':
      throw new LeaseLostError();
    case 'waiting-children':
      // Moved to waiting-children already (ctx.waitForChildren): BullMQ neither completes nor fails it.
      throw new WaitingChildrenError();
    case 'failed': {
      const now = deps.clock.now();
      const record: AttemptRecord = {
        attempt,
        kind: outcome.recordKind,
        message: outcome.error.message,
        ...(outcome.error.stack && { stack: outcome.error.stack }),
        startedAt,
        failedAt: now,
        worker: deps.instanceId,
      };
      const data = runJobDataOf(job.data);
      // A plain BullMQ job's attempts were the queue's when it first failed: kept on the run, so
      // the run view and later attempts agree even if the queue's policy changes.
      if (data.source === 'bullmq' && data.maxAttempts === undefined) {
        await job.updateData({ ...data, maxAttempts });
      }
      const backoff = data.backoff ?? deps.policy.backoff;
      throw attemptError(
        record,
        afterFailure({ attempt, maxAttempts }, outcome.failure, { backoff }, now, deps.random),
      );
    }
  }
}
