import type { Retention } from '@drover/core';
import type { Clock, RedisClient } from '@drover/redis';
import type { BullQueues } from '../queues/bull-queues';
import type { AttemptRecord } from './attempt-log';
import { readJobWithState } from './job-with-state';
import { readLeanJobs, type LeanJob } from './lean-jobs';
import type { RunTombstones } from './run-tombstones';
import type { RunReading } from './run-read-context';
import { runFromJob, type RunView } from './run-view';
import type { NewRun } from './new-run';
import { replayRunOf } from '../run-maker/replay-run';
import { CHILD_FAILED_REASON, DroverError } from '@drover/core';
import { FlowParentNotReplayableError } from './flow-parent-not-replayable.error';
import { failedChildOf } from './flow-view';
import { runJobDataOf } from './run-job-data';

/** A run in a queue's parked area: its payload, every attempt's error and timestamps. */
export type ParkedRun = RunView & { status: 'parked'; errors: AttemptRecord[] };

/** Thrown when an operation needs a parked run and the run is not parked (or not in that queue). */
export class NotParkedError extends DroverError {
  get code() {
    return 'not-parked' as const;
  }

  constructor(
    readonly id: string,
    readonly queue: string,
    readonly status?: string,
  ) {
    super(`run "${id}" is not parked in queue "${queue}"${status ? ` (it is ${status})` : ' (no such run)'}`);
    this.name = 'NotParkedError';
  }
}

/**
 * A position in a queue's parked area, which is ordered newest parked first: by `parkedAt`
 * (BullMQ's `failed` score, the job's finishedOn) descending, then by id descending (Redis's
 * order of equal scores). A page after a cursor starts right after it however the area changed.
 */
export interface ParkedCursor {
  parkedAt: number;
  id: string;
}

export interface ParkedPage {
  /** Each run with its own position (a page may also start right after any of them). */
  items: { run: ParkedRun; at: ParkedCursor }[];
  /** Where the next page starts; absent on the last page. */
  next?: ParkedCursor;
}

export interface ReplayResult {
  /** The parked run that was replayed. */
  replayOf: string;
  /** The new run. */
  id: string;
}

interface Deps {
  bull: BullQueues;
  redis: RedisClient;
  tombstones: RunTombstones;
  reading: RunReading;
  enqueue(run: NewRun): Promise<{ id: string; created: boolean }>;
  retention(queue: string): Promise<Retention>;
  clock: Clock;
}

/**
 * The parked (dead-letter) area of each queue is BullMQ's `failed` set: Drover only lets a job
 * fail for good once its attempts are exhausted (or its error is permanent), and BullMQ never
 * re-hands a failed job by itself. Jobs there are kept until replayed or purged (`removeOnFail`
 * is off). The attempt log rides in the job's stacktrace (see attempt-log.ts).
 */
export class ParkedRuns {
  constructor(private readonly deps: Deps) {}

  async count(queue: string): Promise<number> {
    return this.deps.bull.get(queue).getFailedCount();
  }

  /** Newest parked first. */
  async list(queue: string, opts: { limit?: number; offset?: number } = {}): Promise<ParkedRun[]> {
    const offset = Math.max(0, opts.offset ?? 0);
    const limit = Math.min(Math.max(1, opts.limit ?? 50), 1000);
    const ids = await this.deps.bull.get(queue).getRanges(['failed'], offset, offset + limit - 1, false);
    return (await this.readLean(queue, ids)).flatMap((run) => (run ? [run] : []));
  }

  /** Parked runs read lean, as listings read them (see readLeanJobs); undefined for one gone meanwhile. */
  private async readLean(queue: string, ids: string[]): Promise<(ParkedRun | undefined)[]> {
    const jobs = await readLeanJobs(this.deps.redis, this.deps.bull, queue, ids);
    const ctx = await this.deps.reading.contextOf(
      queue,
      jobs.map((lean) => lean?.job),
    );
    return jobs.map((lean: LeanJob | undefined) => {
      const view = lean && (runFromJob(queue, lean.job, 'failed', ctx) as ParkedRun | undefined);
      if (view && lean.omitted.length) view.omitted = lean.omitted;
      return view;
    });
  }

  /**
   * One page of the parked area after `after` (from the newest without it), up to `limit` runs
   * (1–1000). Cursor-based, so replays and purges between pages neither skip nor repeat a run.
   * A run replayed or purged while the page is read is left out (the page may then be shorter).
   */
  async page(queue: string, opts: { after?: ParkedCursor; limit?: number } = {}): Promise<ParkedPage> {
    const limit = Math.min(Math.max(1, opts.limit ?? 50), 1000);
    const key = this.deps.bull.keys.bullFailed(queue);
    const redis = this.deps.redis;
    const entries: ParkedCursor[] = [];
    const after = opts.after;
    if (after) {
      // Equal scores come in descending id order: the ones below the cursor's id are still to come.
      const same = await redis.zrangebyscore(key, after.parkedAt, after.parkedAt);
      same
        .filter((id) => id < after.id)
        .sort((a, b) => (a < b ? 1 : a > b ? -1 : 0))
        .forEach((id) => entries.push({ parkedAt: after.parkedAt, id }));
    }
    if (entries.length <= limit) {
      const rows = after
        ? await redis.zrevrangebyscore(key, `(${after.parkedAt}`, '-inf', 'WITHSCORES', 'LIMIT', 0, limit + 1)
        : await redis.zrevrange(key, 0, limit, 'WITHSCORES');
      for (let i = 0; i + 1 < rows.length; i += 2) entries.push({ id: rows[i]!, parkedAt: Number(rows[i + 1]) });
    }
    const taken = entries.slice(0, limit);
    const runs = await this.readLean(
      queue,
      taken.map((e) => e.id),
    );
    const items = runs.flatMap((run, i) => (run ? [{ run, at: taken[i]! }] : []));
    return { items, ...(entries.length > limit && { next: taken[taken.length - 1] }) };
  }

  /**
   * The ids of the runs parked within `(after, before)` (epoch ms, both optional and exclusive),
   * newest parked first, from the parked area's index alone (no job is read).
   */
  async ids(queue: string, opts: { before?: number; after?: number } = {}): Promise<string[]> {
    const max = opts.before === undefined ? '+inf' : `(${opts.before}`;
    const min = opts.after === undefined ? '-inf' : `(${opts.after}`;
    return this.deps.redis.zrevrangebyscore(this.deps.bull.keys.bullFailed(queue), max, min);
  }

  async get(queue: string, id: string): Promise<ParkedRun | undefined> {
    const { job, state } = await readJobWithState(this.deps.bull.get(queue), id);
    if (!job || state !== 'failed') return undefined;
    return runFromJob(queue, job, 'failed', await this.deps.reading.contextOf(queue, [job])) as ParkedRun;
  }

  /**
   * Runs a parked run again as a new run (fresh attempts, source `replay`, `replayOf` = the parked
   * id, same payload and slot). The parked run leaves the parked area and ends `failed` with
   * `replayedAs`. Idempotent: replaying the same parked run again returns the same new run.
   */
  async replay(queue: string, id: string): Promise<ReplayResult> {
    const q = this.deps.bull.get(queue);
    // The replay id derives from finishedOn: a hash older than its `failed` state (none yet) would
    // give a concurrent replay of the same run another id, and so a second new run.
    const { job, state } = await readJobWithState(q, id);
    if (!job || state !== 'failed') {
      const done = await this.deps.tombstones.get(id);
      if (done?.replayedAs && done.queue === queue) return { replayOf: id, id: done.replayedAs };
      const status = job ? runFromJob(queue, job, state)?.status : undefined;
      throw new NotParkedError(id, queue, status ?? done?.status);
    }
    const parked = runFromJob(queue, job, 'failed', await this.deps.reading.contextOf(queue, [job]))!;
    if (parked.reason === CHILD_FAILED_REASON) {
      throw new FlowParentNotReplayableError(id, failedChildOf(runJobDataOf(job.data), job.failedReason)?.id);
    }
    const run = replayRunOf(queue, job, parked.createdBy);
    const newId = run.id;
    await this.deps.enqueue(run);
    const now = this.deps.clock.now();
    await this.deps.tombstones.put(
      { ...parked, status: 'failed', replayedAs: newId, reason: `replayed as ${newId}`, updatedAt: now },
      await this.deps.retention(queue),
      now,
    );
    await q.remove(id);
    return { replayOf: id, id: newId };
  }

  /** Replays every run parked when the call starts (runs parked meanwhile wait for the next call). */
  async replayAll(queue: string): Promise<ReplayResult[]> {
    const ids = await this.deps.bull.get(queue).getRanges(['failed'], 0, -1, false);
    const out: ReplayResult[] = [];
    for (const id of ids) {
      try {
        out.push(await this.replay(queue, id));
      } catch (err) {
        // Replayed or purged by someone else meanwhile; a flow's parent parked for its child stays.
        if (!(err instanceof NotParkedError) && !(err instanceof FlowParentNotReplayableError)) throw err;
      }
    }
    return out;
  }

  /** Deletes one parked run, or every parked run of the queue. Returns how many were deleted. */
  async purge(queue: string, id?: string): Promise<number> {
    const q = this.deps.bull.get(queue);
    if (id !== undefined) {
      if ((await q.getJobState(id)) !== 'failed') return 0;
      return q.remove(id);
    }
    let total = 0;
    for (;;) {
      const removed = await q.clean(0, 1000, 'failed');
      total += removed.length;
      if (removed.length < 1000) return total;
    }
  }
}
