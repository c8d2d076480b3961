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
  const job = await readJob(queue, id);
  return { job: job?.id ? (job as Job<RunJobData> & { id: string }) : undefined, state };
}

/** The field every job hash has (BullMQ's storeJob writes it with the job), and no other key of BullMQ's. */
export const JOB_HASH_FIELD = 'timestamp';

/** True for the error Redis answers a command on a key of another type. */
export const isWrongType = (err: unknown): boolean => err instanceof Error && err.message.startsWith('WRONGTYPE');

/**
 * The job `id` of `queue`, or undefined when there is none. BullMQ keeps its own keys in its jobs'
 * namespace (`<queue>:events` a stream, `<queue>:meta` a hash, `<queue>:<id>:logs` a list, ...),
 * so an id may name one: a key of another type, or a hash without {@link JOB_HASH_FIELD}, is
 * not a job.
 */
export async function readJob(queue: Queue, id: string): Promise<Job<RunJobData> | undefined> {
  try {
    const job = (await queue.getJob(id)) as Job<RunJobData> | undefined;
    return job?.[JOB_HASH_FIELD] === undefined ? undefined : job;
  } catch (err) {
    if (isWrongType(err)) return undefined;
    throw err;
  }
}
