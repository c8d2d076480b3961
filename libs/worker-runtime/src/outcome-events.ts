import type { Job, Worker } from 'bullmq';
import type { Logger } from 'pino';
import { attemptOf, isCanceledMarker, runJobDataOf, type RunJobData } from '@drover/store';
import type { AttemptError } from './attempt-errors';
import type { RunMetrics } from './run-metrics';
import type { RoutineStatsRecorder } from './routine-stats-recorder';

/** Handler wall time of the attempt (s), kept on the job object until BullMQ's event reports its end. */
const SPENT = Symbol('drover.spent');
type JobWithSpent = Job & { [SPENT]?: number };

export function recordSpent(job: Job, seconds: number): void {
  (job as JobWithSpent)[SPENT] = seconds;
}

const spentOn = (job: Job): number | undefined => (job as JobWithSpent)[SPENT];

/** A duration as a log line shows it: three significant digits (1.5, 0.0914), not the float's seventeen. */
export const shownSeconds = (seconds: number | undefined): number | undefined =>
  seconds === undefined ? undefined : Number(seconds.toPrecision(3));

/**
 * Counts and logs each run outcome from BullMQ's worker events, and when a run of a `buffer-one`
 * routine ends (succeeded, canceled or parked) asks for the routine's buffered run to start. `completed` and `failed` fire only
 * after BullMQ moved the job in Redis, so a duplicate delivery whose transition BullMQ refuses (its
 * lock was lost) is neither counted nor logged. One line per outcome: successes at debug (the hot
 * path; `npm start` shows them), retries and cancels at info, parked runs at warn.
 */
export function watchOutcomes(
  worker: Worker<RunJobData>,
  queue: string,
  metrics: RunMetrics,
  stats: RoutineStatsRecorder,
  log: Logger,
  startBuffered?: (routine: string) => Promise<unknown>,
): void {
  const durationMs = (job: Job) => {
    const s = spentOn(job);
    return s === undefined ? undefined : s * 1000;
  };
  const runFields = (job: Job<RunJobData>) => ({
    queue,
    run: job.id,
    jobType: job.name,
    routine: runJobDataOf(job.data).routine ?? undefined,
    attempt: attemptOf(job),
  });
  // A run of a buffer-one routine ended for good (BullMQ moved it already): its buffered run may start.
  const settled = (job: Job<RunJobData>) => {
    const data = runJobDataOf(job.data);
    if (!data.bo || !data.routine || !startBuffered) return;
    const routine = data.routine;
    startBuffered(routine).catch((err: unknown) =>
      log.warn({ ...runFields(job), err }, 'could not start the buffered run; the leader repairs it'),
    );
  };
  worker.on('completed', (job, result) => {
    settled(job);
    const canceled = isCanceledMarker(result);
    metrics.outcome(queue, job.name, canceled ? 'canceled' : 'succeeded', spentOn(job));
    stats.observeQueue(queue, { counter: canceled ? 'canceled' : 'succeeded' });
    stats.observe(runJobDataOf(job.data).routine, {
      status: canceled ? 'canceled' : 'succeeded',
      durationMs: durationMs(job),
    });
    if (canceled) log.info(runFields(job), 'run canceled');
    else if (log.isLevelEnabled('debug'))
      log.debug({ ...runFields(job), seconds: shownSeconds(spentOn(job)) }, 'run succeeded');
  });
  worker.on('failed', (job, err) => {
    if (!job) return;
    const decision = (err as AttemptError).decision;
    const parked = decision ? decision.action === 'park' : !!job.finishedOn;
    if (parked) settled(job);
    metrics.outcome(queue, job.name, parked ? 'parked' : 'retried', spentOn(job));
    stats.observeQueue(queue, { counter: parked ? 'parked' : 'retried' });
    if (parked) stats.observe(runJobDataOf(job.data).routine, { status: 'parked', durationMs: durationMs(job) });
    if (parked) log.warn({ ...runFields(job), err: err.message }, 'run parked: attempts exhausted or permanent error');
    else log.info({ ...runFields(job), err: err.message }, 'attempt failed; will retry');
  });
  // Emitted once cluster-wide per reclaimed job: only the worker whose check moved it sees it.
  worker.on('stalled', () => metrics.leaseReclaimed(queue));
}
