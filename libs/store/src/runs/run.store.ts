import type { Job, JobsOptions } from 'bullmq';
import { ACTIVE_RUN_STATUSES, checkPayload, type Backoff, type Queue, type RunSource } from '@drover/core';
import type { DroverKeys, RedisConnections } from '@drover/redis';
import { BullQueues } from '../queues/bull-queues';
import type { QueueRegistry } from '../queues/queue-registry.store';
import { cancelChannel, encodeCancel } from './cancel-channel';
import { ParkedRuns, type ParkedRun, type ReplayResult } from './parked.store';
import { bullPriorityFor, isDefaultRank } from './run-ids';
import { RunIndex, type RunRef } from './run-index';
import { listQueueRuns, type QueueRunsQuery } from './run-listing';
import type { RunJobData } from './run-job-data';
import { RunTombstones } from './run-tombstones';
import { runFromJob, type BullJobState, type RunView } from './run-view';
import { RunWaiter } from './run-waiter';

/** What a producer (scheduler, api, client) asks for. Times are epoch ms. */
export interface NewRun {
  /** The run id, from core (`runIdForSlot`, `adHocRunId`, `runIdForIdempotencyKey`); also the BullMQ job id. */
  id: string;
  routine: string | null;
  jobType: string;
  queue: string;
  source: RunSource;
  scheduledFor: number | null;
  payload: unknown;
  /** Core's priority value (`priorityValue`: higher runs first); default 0 (medium). */
  priority?: number;
  delayMs?: number;
  /** Default: the queue's maxAttempts. */
  maxAttempts?: number;
  createdBy?: string;
  replayOf?: string;
  /** Per-run overrides of the queue policy (a routine's own timeoutMs / backoff). */
  timeoutMs?: number;
  backoff?: Backoff;
}

export interface SkippedRun {
  id: string;
  routine: string | null;
  jobType: string;
  queue: string;
  source: RunSource;
  scheduledFor: number | null;
  reason: string;
}

export type CancelOutcome = 'canceled' | 'cancel-requested' | 'already-final' | 'not-found';

export interface CancelResult {
  outcome: CancelOutcome;
  /** The run as it was after the request (for `already-final`: why nothing happened). */
  run: RunView | null;
}

/** Thrown by `enqueue` for a payload that is not plain JSON or is too large; nothing is stored. */
export class InvalidPayloadError extends Error {
  constructor(readonly issues: { path: (string | number)[]; message: string }[]) {
    super(
      `invalid payload: ${issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'} ${i.message}`).join('; ')}`,
    );
    this.name = 'InvalidPayloadError';
  }
}

const DEFAULT_RETENTION_MS = 7 * 24 * 3_600_000;
/** A missing candidate younger than this may still be on its way in (index written before the job). */
const OPEN_GRACE_MS = 60_000;
const POLICY_CACHE_MS = 2_000;

/**
 * Runs, kept on their BullMQ jobs (see {@link RunJobData}); the run id is the job id. Which queue
 * holds a run is found by probing the defined queues (one EXISTS each, sent together), so
 * enqueueing writes nothing beyond the job itself, plus two sorted-set entries for routine runs.
 */
export class RunStore {
  readonly bull: BullQueues;
  private readonly index: RunIndex;
  private readonly tombstones: RunTombstones;
  private readonly waiter: RunWaiter;
  private readonly parked: ParkedRuns;
  private readonly policies = new Map<string, { def: Queue | undefined; at: number }>();
  private readonly now: () => number;

  constructor(
    private readonly connections: RedisConnections,
    private readonly keys: DroverKeys,
    private readonly registry: QueueRegistry,
    opts: { bull?: BullQueues; now?: () => number } = {},
  ) {
    this.bull = opts.bull ?? registry.bull ?? new BullQueues(connections, keys);
    this.now = opts.now ?? Date.now;
    this.index = new RunIndex(connections.command, keys);
    this.tombstones = new RunTombstones(connections.command, keys);
    this.waiter = new RunWaiter(connections, this.bull);
    this.parked = new ParkedRuns({
      bull: this.bull,
      tombstones: this.tombstones,
      enqueue: (run) => this.enqueue(run),
      retentionMs: async (q) => (await this.policy(q))?.retention.ageMs ?? DEFAULT_RETENTION_MS,
      now: this.now,
    });
  }

  private get redis() {
    return this.connections.command;
  }

  /** The queue's policy, cached briefly (policies change rarely; enqueue is hot). */
  private async policy(queue: string): Promise<Queue | undefined> {
    const hit = this.policies.get(queue);
    if (hit && this.now() - hit.at < POLICY_CACHE_MS) return hit.def;
    const def = await this.registry.get(queue);
    this.policies.set(queue, { def, at: this.now() });
    return def;
  }

  private jobOptions(run: NewRun, policy: Queue, ranked: boolean): JobsOptions {
    return {
      jobId: run.id,
      attempts: run.maxAttempts ?? policy.maxAttempts,
      // The delay is computed by core's retry policy in the worker (a BullMQ custom strategy).
      backoff: { type: 'drover' },
      ...(ranked && { priority: bullPriorityFor(run.source, run.priority ?? 0) }),
      ...(run.delayMs && run.delayMs > 0 && { delay: Math.round(run.delayMs) }),
      // Retention (removeOnComplete) is queue policy, applied by the workers; a failed job is a
      // parked run and stays until an operator replays or purges it.
    };
  }

  private jobData(run: NewRun): RunJobData {
    // Absent = null; the job type is the job's name. Every byte here is read back on every start.
    const data: RunJobData = { source: run.source, payload: run.payload };
    if (run.routine !== null) data.routine = run.routine;
    if (run.scheduledFor !== null) data.scheduledFor = run.scheduledFor;
    if (run.createdBy) data.createdBy = run.createdBy;
    if (run.replayOf) data.replayOf = run.replayOf;
    if (run.timeoutMs) data.timeoutMs = run.timeoutMs;
    if (run.backoff) data.backoff = run.backoff;
    return data;
  }

  /**
   * Adds a run to its queue. Idempotent on `id`: a second call (or a call for a run that was
   * skipped, canceled or replayed) creates nothing and answers `created: false`. Two calls racing
   * may both answer `created: true`, but only one job (one run) ever exists.
   */
  async enqueue(run: NewRun): Promise<{ id: string; created: boolean }> {
    return (await this.enqueueMany([run]))[0]!;
  }

  /**
   * {@link enqueue} for many runs at once: one existence check and one BullMQ addBulk per queue.
   *
   * Order of work: a queue serves its runs first in, first out until it first receives a run of
   * another rank (a manual trigger, a replay, or a priority other than medium). From then on the
   * queue is *ranked* (a flag next to its BullMQ keys) and every run carries a BullMQ priority:
   * manual before the rest, then by priority, then first in, first out (spec §4). Runs already
   * waiting unranked at that moment are served first, once. BullMQ's prioritized set costs about
   * a quarter more Redis time per job than its wait list, so queues that never need it never pay.
   */
  async enqueueMany(runs: NewRun[]): Promise<{ id: string; created: boolean }[]> {
    const byQueue = new Map<string, NewRun[]>();
    for (const run of runs) {
      const issues = checkPayload(run.payload);
      if (issues.length) throw new InvalidPayloadError(issues);
      const group = byQueue.get(run.queue);
      if (group) group.push(run);
      else byQueue.set(run.queue, [run]);
    }
    const created = new Map<string, boolean>();
    for (const [queue, group] of byQueue) {
      const policy = (await this.policy(queue)) ?? (await this.registry.require(queue));
      const rankedKey = this.bull.queueKey(queue, 'ranked');
      const [exists, rankedFlag] = await this.probe(
        group.flatMap((r) => [this.bull.jobKey(queue, r.id), this.tombstones.key(r.id)]),
        rankedKey,
      );
      const isNew = group.map((_, i) => !exists[2 * i] && !exists[2 * i + 1]);
      const fresh = group.filter((_, i) => isNew[i]);
      group.forEach((r, i) => created.set(r.id, isNew[i]!));
      if (fresh.length === 0) continue;
      let ranked = rankedFlag === '1';
      if (!ranked && fresh.some((r) => !isDefaultRank(r.source, r.priority ?? 0))) {
        await this.redis.set(rankedKey, '1');
        ranked = true;
      }
      const jobs = fresh.map((r) => ({
        name: r.jobType,
        data: this.jobData(r),
        opts: this.jobOptions(r, policy, ranked),
      }));
      const added =
        jobs.length === 1
          ? [await this.bull.get(queue).add(jobs[0]!.name, jobs[0]!.data, jobs[0]!.opts)]
          : await this.bull.get(queue).addBulk(jobs);
      const withRoutine = fresh.filter((r) => r.routine !== null);
      if (withRoutine.length) {
        const addedAt = new Map(added.map((j) => [j.id, j.timestamp]));
        const pipe = this.redis.pipeline();
        for (const r of withRoutine) {
          const at = addedAt.get(r.id) ?? this.now();
          this.index.add(pipe, r.routine!, { queue, id: r.id, createdAt: at }, true);
        }
        await pipe.exec();
      }
    }
    return runs.map((r) => ({ id: r.id, created: created.get(r.id) ?? false }));
  }

  /** EXISTS for each key plus one GET, in one round trip. */
  private async probe(existKeys: string[], getKey: string): Promise<[boolean[], string | null]> {
    if (this.connections.isCluster) {
      return Promise.all([this.existsEach(existKeys), this.redis.get(getKey)]);
    }
    const pipe = this.redis.pipeline();
    for (const k of existKeys) pipe.exists(k);
    pipe.get(getKey);
    const res = (await pipe.exec()) ?? [];
    const values = res.map(([err, v]) => {
      if (err) throw err;
      return v;
    });
    return [values.slice(0, -1).map((n) => n === 1), (values[values.length - 1] as string | null) ?? null];
  }

  /** EXISTS for each key, in one round trip (a pipeline; on Cluster, commands sent together). */
  private async existsEach(keys: string[]): Promise<boolean[]> {
    if (this.connections.isCluster)
      return (await Promise.all(keys.map((k) => this.redis.exists(k)))).map((n) => n === 1);
    const pipe = this.redis.pipeline();
    for (const k of keys) pipe.exists(k);
    const res = (await pipe.exec()) ?? [];
    return res.map(([err, n]) => {
      if (err) throw err;
      return n === 1;
    });
  }

  /** Records a fire that policy skipped: a run with status `skipped` that never reaches a worker. */
  async recordSkipped(s: SkippedRun): Promise<{ id: string; created: boolean }> {
    const now = this.now();
    const view: RunView = {
      id: s.id,
      routine: s.routine,
      jobType: s.jobType,
      queue: s.queue,
      source: s.source,
      scheduledFor: s.scheduledFor,
      status: 'skipped',
      reason: s.reason,
      attempt: 0,
      maxAttempts: (await this.policy(s.queue))?.maxAttempts ?? 1,
      createdAt: now,
      updatedAt: now,
      finishedAt: now,
    };
    if ((await this.redis.exists(this.bull.jobKey(s.queue, s.id))) === 1) return { id: s.id, created: false };
    const created = await this.tombstones.create(view, await this.retentionMs(s.queue));
    if (created && s.routine !== null) {
      await this.index
        .add(this.redis.pipeline(), s.routine, { queue: s.queue, id: s.id, createdAt: now }, false)
        .exec();
    }
    return { id: s.id, created };
  }

  private async retentionMs(queue: string): Promise<number> {
    return (await this.policy(queue))?.retention.ageMs ?? DEFAULT_RETENTION_MS;
  }

  /** Which defined queue holds a job with this id (undefined: none). */
  private async locate(id: string, hint?: string): Promise<string | undefined> {
    if (hint && (await this.redis.exists(this.bull.jobKey(hint, id))) === 1) return hint;
    const names = (await this.registry.list()).map((r) => r.def.name);
    const hits = await this.existsEach(names.map((q) => this.bull.jobKey(q, id)));
    return names.find((_, i) => hits[i]);
  }

  private async viewIn(queue: string, id: string): Promise<RunView | undefined> {
    const q = this.bull.get(queue);
    const [job, state] = await Promise.all([q.getJob(id) as Promise<Job<RunJobData> | undefined>, q.getJobState(id)]);
    if (!job?.id) return undefined;
    return runFromJob(queue, job as Job<RunJobData> & { id: string }, state as BullJobState);
  }

  /** The run view, or null. `queue` (optional) saves the lookup when the caller knows it. */
  async get(id: string, queue?: string): Promise<RunView | null> {
    const found = await this.locate(id, queue);
    const view = found ? await this.viewIn(found, id) : undefined;
    return view ?? (await this.tombstones.get(id)) ?? null;
  }

  private async viewOf(ref: RunRef): Promise<RunView | undefined> {
    return (await this.viewIn(ref.queue, ref.id)) ?? (await this.tombstones.get(ref.id));
  }

  /** A routine's runs, newest first (from its index of the newest 1000). */
  async listByRoutine(routine: string, opts: { limit?: number; status?: RunView['status'] } = {}): Promise<RunView[]> {
    const limit = Math.min(Math.max(1, opts.limit ?? 50), 1000);
    const out: RunView[] = [];
    for (let offset = 0; out.length < limit; offset += 100) {
      const refs = await this.index.recent(routine, offset, 100);
      const views = await Promise.all(refs.map((r) => this.viewOf(r)));
      for (const v of views) if (v && (!opts.status || v.status === opts.status) && out.length < limit) out.push(v);
      if (refs.length < 100) break;
    }
    return out;
  }

  /**
   * Runs across the defined queues (or only `queue`), newest first; see {@link listQueueRuns} for
   * what is and is not listed. Throws UnknownQueueError for an undefined `queue`.
   */
  async listRecent(query: QueueRunsQuery & { queue?: string } = {}): Promise<RunView[]> {
    const queues = query.queue
      ? [(await this.registry.require(query.queue)).name]
      : (await this.registry.list()).map((r) => r.def.name);
    return listQueueRuns(this.bull, queues, query);
  }

  /**
   * The routine's runs that are scheduled, queued or running anywhere in the cluster. Reads the
   * routine's open candidates and their real state; drops candidates that have ended.
   */
  async openRunsOfRoutine(routine: string): Promise<RunView[]> {
    const refs = await this.index.openCandidates(routine);
    const views = await Promise.all(refs.map((r) => this.viewOf(r)));
    const now = this.now();
    const ended = refs.filter((r, i) => {
      const v = views[i];
      return v ? !ACTIVE_RUN_STATUSES.includes(v.status) : now - r.createdAt > OPEN_GRACE_MS;
    });
    await this.index.dropOpen(routine, ended);
    return views.filter((v): v is RunView => !!v && ACTIVE_RUN_STATUSES.includes(v.status));
  }

  /**
   * Cancels a run. Queued or delayed: removed before it starts, ends `canceled`. Running: the
   * holding worker is told over pub/sub, aborts the handler, and the run ends `canceled` (never
   * retried); the request is also written on the job so a restart of the run sees it.
   * Ended (or parked): nothing happens.
   */
  async cancel(id: string, reason = 'canceled'): Promise<CancelResult> {
    const queue = await this.locate(id);
    if (!queue) {
      const run = await this.tombstones.get(id);
      return { outcome: run ? 'already-final' : 'not-found', run: run ?? null };
    }
    const q = this.bull.get(queue);
    for (let round = 0; round < 3; round++) {
      const view = await this.viewIn(queue, id);
      if (!view) {
        // Removed meanwhile (by retention, a purge or another cancel).
        const run = await this.tombstones.get(id);
        return { outcome: run ? 'already-final' : 'not-found', run: run ?? null };
      }
      const now = this.now();
      if (view.status === 'queued' || view.status === 'scheduled') {
        const canceled: RunView = { ...view, status: 'canceled', reason, finishedAt: now, updatedAt: now };
        await this.tombstones.put(canceled, await this.retentionMs(queue));
        // BullMQ refuses to remove a locked (just started) job: then it is running, go round again.
        if ((await q.remove(id)) === 1) return { outcome: 'canceled', run: canceled };
        await this.tombstones.delete(id);
        continue;
      }
      if (view.status === 'running') {
        const job = (await q.getJob(id)) as Job<RunJobData> | undefined;
        if (job) await job.updateData({ ...job.data, cancel: { reason, at: now } });
        await this.redis.publish(cancelChannel(this.keys), encodeCancel({ id, queue, reason }));
        return { outcome: 'cancel-requested', run: view };
      }
      return { outcome: 'already-final', run: view };
    }
    return { outcome: 'already-final', run: await this.get(id, queue) };
  }

  /**
   * Waits for the run to end (succeeded, failed, canceled, skipped or parked), driven by the
   * queue's event stream, not by polling. `run` is null if no such run exists.
   */
  async waitForTerminal(id: string, timeoutMs: number): Promise<{ run: RunView | null; timedOut: boolean }> {
    const queue = await this.locate(id);
    if (!queue) return { run: await this.tombstones.get(id).then((v) => v ?? null), timedOut: false };
    return this.waiter.wait(queue, id, () => this.get(id, queue), timeoutMs);
  }

  listParked(queue: string, opts: { limit?: number; offset?: number } = {}): Promise<ParkedRun[]> {
    return this.parked.list(queue, opts);
  }

  parkedCount(queue: string): Promise<number> {
    return this.parked.count(queue);
  }

  /** The parked run with this id, in whichever queue holds it. */
  async getParked(id: string, queue?: string): Promise<ParkedRun | null> {
    const found = await this.locate(id, queue);
    return (found && (await this.parked.get(found, id))) || null;
  }

  replayParked(queue: string, id: string): Promise<ReplayResult> {
    return this.parked.replay(queue, id);
  }

  replayAllParked(queue: string): Promise<ReplayResult[]> {
    return this.parked.replayAll(queue);
  }

  purgeParked(queue: string, id?: string): Promise<number> {
    return this.parked.purge(queue, id);
  }

  async close(): Promise<void> {
    await this.waiter.close();
  }
}
