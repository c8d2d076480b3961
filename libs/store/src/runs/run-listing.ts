import type { Job, JobState } from 'bullmq';
import type { RunStatus } from '@drover/core';
import type { BullQueues } from '../queues/bull-queues';
import type { RunJobData } from './run-job-data';
import { runFromJob, type BullJobState, type RunView } from './run-view';

/** Which BullMQ states can hold a run of each status (`failed` and `skipped` runs have no job). */
const STATES_OF: Record<RunStatus, (JobState & BullJobState)[]> = {
  scheduled: ['delayed'],
  // A retry waiting out its backoff is delayed but still `queued`.
  queued: ['waiting', 'prioritized', 'delayed'],
  running: ['active'],
  succeeded: ['completed'],
  canceled: ['completed'],
  parked: ['failed'],
  failed: [],
  skipped: [],
};
const ALL_STATES: (JobState & BullJobState)[] = ['waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed'];

export interface QueueRunsQuery {
  /** Only runs with this status. */
  status?: RunStatus;
  /** At most this many (1–1000); default 50. */
  limit?: number;
}

/**
 * Runs held in the given queues' BullMQ jobs, newest first (by creation, then id). Reads at most
 * `limit` jobs per queue and state — the newest of each state in BullMQ's own order — so a
 * listing is bounded however large the queues are. Runs that have no job (canceled before they
 * started, skipped fires, replayed parked runs) are not listed here; a routine's listing has them.
 */
export async function listQueueRuns(bull: BullQueues, queues: string[], query: QueueRunsQuery): Promise<RunView[]> {
  const limit = Math.min(Math.max(1, query.limit ?? 50), 1000);
  const states = query.status ? STATES_OF[query.status] : ALL_STATES;
  const reads = queues.flatMap((queue) =>
    states.map(async (state) => {
      // BullMQ reads the ids in `state` first and each job's hash after them, so every hash is at
      // least as new as the state it is shown with (see readJobWithState).
      const jobs = (await bull.get(queue).getJobs([state], 0, limit - 1, false)) as Job<RunJobData>[];
      return jobs.map((job) =>
        job?.id ? runFromJob(queue, job as Job<RunJobData> & { id: string }, state) : undefined,
      );
    }),
  );
  const views = (await Promise.all(reads))
    .flat()
    .filter((v): v is RunView => !!v && (!query.status || v.status === query.status));
  views.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return views.slice(0, limit);
}
