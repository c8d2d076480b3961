import type { Job, Queue } from 'bullmq';
import type { RunJobData } from './run-job-data';
import type { BullJobState } from './run-view';

export interface JobWithState {
  /** Undefined once the job is gone (removed by retention, a cancel, a purge or a replay). */
  job: (Job<RunJobData> & { id: string }) | undefined;
  state: BullJobState;
}

/**
 * Reads a job's state, then the job — one after the other, in this order, so the job hash is at
 * least as new as the state it is combined with. BullMQ moves a job and writes what the new state
 * implies (`failedReason` and `stacktrace` on `failed`, `returnvalue` on `completed`, `finishedOn`,
 * `attemptsStarted` on `active`) in one Lua script, so a hash read after a state always carries
 * that state's fields. The other order, or both at once (the two commands are sent separately and
 * a worker's move can run between them), can pair an old hash with a new state: a run `parked`
 * without its error. The opposite mix — a newer hash with an older state — only ever shows a run
 * one step behind, which the next read catches up on.
 *
 * Not one MULTI or Lua read: the state check is BullMQ's own script (`getState`), and building a
 * `Job` from a raw hash read elsewhere would copy BullMQ's private field encoding. The price is a
 * second round trip.
 */
export async function readJobWithState(queue: Queue, id: string): Promise<JobWithState> {
  const state = (await queue.getJobState(id)) as BullJobState;
  const job = (await queue.getJob(id)) as Job<RunJobData> | undefined;
  return { job: job?.id ? (job as Job<RunJobData> & { id: string }) : undefined, state };
}
