import type { JobState } from 'bullmq';
import type { RunStatus } from '@drover/core';
import type { RedisClient } from '@drover/redis';
import type { BullQueues } from '../queues/bull-queues';
import { readLeanJobs } from './lean-jobs';
import type { RunRef } from './run-index';
import type { RunReading } from './run-read-context';
import { runFromJob, type BullJobState, type RunView } from './run-view';

/** Which BullMQ states can hold a run of each status (`failed` and `skipped` runs have no job). */
const STATES_OF: Record<RunStatus, (JobState & BullJobState)[]> = {
  scheduled: ['delayed'],
  // A gated run is held back (delayed) until an operator decides or its expiry releases it.
  'awaiting-approval': ['delayed'],
  // A retry waiting out its backoff is delayed but still `queued`, and so is a flow's parent
  // waiting for its children.
  queued: ['waiting', 'prioritized', 'delayed', 'waiting-children'],
  running: ['active'],
  succeeded: ['completed'],
  canceled: ['completed'],
  parked: ['failed'],
  failed: [],
  skipped: [],
};
const ALL_STATES: (JobState & BullJobState)[] = [
  'waiting',
  'prioritized',
  'delayed',
  'waiting-children',
  'active',
  'completed',
  'failed',
];

export interface QueueRunsQuery {
  /** Only runs with this status. */
  status?: RunStatus;
  /** At most this many (1–1000); default 50. */
  limit?: number;
  /**
   * Also reach back to runs created at or before this instant (epoch ms): ended runs (completed,
   * failed) are kept by when they ended, so the newest `limit` that ended by `until` — all created
   * by then — are listed besides the newest `limit` of each state. Callers filter the creation window.
   */
  until?: number;
}

/** BullMQ keeps ended jobs in sorted sets scored by when they ended. */
const ENDED_STATES: ReadonlySet<string> = new Set(['completed', 'failed']);

/** A run held in a job, as a listing first sees it (before reading the job): where, since when, in which state. */
export interface QueueRunRef extends RunRef {
  state: BullJobState;
}

const newestFirst = (a: RunRef, b: RunRef) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * The runs held in the given queues' jobs, newest first (by creation, then id), as references:
 * the newest `limit` ids of each queue and state in BullMQ's own order, with each job's creation time. No
 * job is read whole, so a page reads only the runs it shows ({@link loadQueueRuns}). The ids of a
 * state are read before the job, so a job read later is at least as new as that state (see
 * readJobWithState). `status` narrows the states read; a run in one of them may still have
 * another status (a delayed job is `scheduled` or a retry `queued`), which only its job tells.
 */
export async function listQueueRunRefs(
  redis: RedisClient,
  bull: BullQueues,
  queues: string[],
  query: QueueRunsQuery,
): Promise<QueueRunRef[]> {
  const limit = Math.min(Math.max(1, query.limit ?? 50), 1000);
  const states = query.status ? STATES_OF[query.status] : ALL_STATES;
  const perQueue = await Promise.all(
    queues.map(async (queue) => {
      const q = bull.get(queue);
      const ids = await Promise.all(
        states.map(async (state) => {
          const newest = await q.getRanges([state], 0, limit - 1, false);
          if (query.until === undefined || !ENDED_STATES.has(state)) return newest;
          const endedBy = await redis.zrevrangebyscore(q.toKey(state), query.until, '-inf', 'LIMIT', 0, limit);
          return [...newest, ...endedBy];
        }),
      );
      const seen = new Set<string>();
      const refs = ids.flatMap((list, s) =>
        list
          .filter((id) => !seen.has(id) && seen.add(id))
          .map((id) => ({ queue, id, state: states[s]!, createdAt: 0 })),
      );
      if (!refs.length) return [];
      // `timestamp` (creation, epoch ms) is named alike in BullMQ's job hash and its public Job.
      const pipe = redis.pipeline();
      for (const r of refs) pipe.hget(q.toKey(r.id), 'timestamp');
      const times = (await pipe.exec()) ?? [];
      return refs.flatMap((r, i) => {
        const at = Number(times[i]?.[1]);
        return Number.isFinite(at) && times[i]?.[1] !== null ? [{ ...r, createdAt: at }] : [];
      });
    }),
  );
  return perQueue.flat().sort(newestFirst);
}

/**
 * The views of `refs` (in order; undefined for a run whose job is gone or changed state), each
 * read lean: no value over the inline cap leaves Redis (see readLeanJobs), and `omitted` says
 * what was left out.
 */
export async function loadQueueRuns(
  redis: RedisClient,
  bull: BullQueues,
  reading: RunReading,
  refs: readonly QueueRunRef[],
): Promise<(RunView | undefined)[]> {
  const out: (RunView | undefined)[] = new Array<RunView | undefined>(refs.length);
  const byQueue = new Map<string, number[]>();
  refs.forEach((r, i) => byQueue.set(r.queue, [...(byQueue.get(r.queue) ?? []), i]));
  await Promise.all(
    [...byQueue].map(async ([queue, at]) => {
      const jobs = await readLeanJobs(
        redis,
        bull,
        queue,
        at.map((i) => refs[i]!.id),
      );
      const ctx = await reading.contextOf(
        queue,
        jobs.map((lean) => lean?.job),
      );
      jobs.forEach((lean, k) => {
        const i = at[k]!;
        const view = lean && runFromJob(queue, lean.job, refs[i]!.state, ctx);
        if (view && lean.omitted.length) view.omitted = lean.omitted;
        out[i] = view;
      });
    }),
  );
  return out;
}

/**
 * Runs held in the given queues' BullMQ jobs, newest first (by creation, then id): up to `limit`
 * of them, from the newest `limit` of each queue and state, so a listing is bounded however large
 * the queues are. Jobs are read lean, a batch at a time, only as far as the listing needs. Runs
 * that have no job (canceled before they started, skipped fires, replayed parked runs) are not
 * listed here; a routine's listing has them.
 */
export async function listQueueRuns(
  redis: RedisClient,
  bull: BullQueues,
  reading: RunReading,
  queues: string[],
  query: QueueRunsQuery,
): Promise<RunView[]> {
  const limit = Math.min(Math.max(1, query.limit ?? 50), 1000);
  const refs = await listQueueRunRefs(redis, bull, queues, query);
  const out: RunView[] = [];
  for (let i = 0; i < refs.length && out.length < limit;) {
    const batch = refs.slice(i, i + (limit - out.length));
    i += batch.length;
    for (const v of await loadQueueRuns(redis, bull, reading, batch)) {
      if (v && (!query.status || v.status === query.status)) out.push(v);
    }
  }
  return out.slice(0, limit);
}
