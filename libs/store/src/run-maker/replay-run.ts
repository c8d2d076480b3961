import type { Job } from 'bullmq';
import type { NewRun } from '../runs/new-run';
import { runJobDataOf, type RunJobData } from '../runs/run-job-data';
import { priorityValueOfBull } from '../runs/run-ids';
import { newRunId } from './run-id';
import { tracksOpenRuns } from './open-runs';

/**
 * The run that replays parked job `job` of `queue`: fresh attempts (as many as it had), source
 * `replay`, `replayOf` the parked id, the same payload, slot, priority, per-run policy and producer
 * (`createdBy`, as the parked run's view reads it: its producer code resolved). Its id
 * derives from when the job was parked, so a replay retried after a crash makes the same run.
 */
export function replayRunOf(queue: string, job: Job<RunJobData>, createdBy: string | undefined): NewRun {
  const d = runJobDataOf(job.data);
  return {
    id: newRunId({ kind: 'replay', parkedId: job.id!, parkedAt: job.finishedOn ?? job.timestamp }),
    routine: d.routine ?? null,
    jobType: job.name,
    queue,
    source: 'replay',
    scheduledFor: d.scheduledFor ?? null,
    payload: d.payload,
    // As many as it had: its own, or (none stored) its queue's current ones.
    ...(job.opts.attempts && { maxAttempts: job.opts.attempts }),
    ...(job.opts.priority && { priority: priorityValueOfBull(job.opts.priority) }),
    ...(createdBy && { createdBy }),
    ...(d.timeoutMs && { timeoutMs: d.timeoutMs }),
    ...(d.backoff && { backoff: d.backoff }),
    replayOf: job.id!,
    // Its key as the option: a queue taking keys from the option keeps the replay under it.
    ...(d.ckey !== undefined && { concurrencyKey: d.ckey }),
    // The routine's definition is not read here (see tracksOpenRuns).
    ...(d.routine && { trackOpen: tracksOpenRuns(undefined) }),
  };
}
