import { ACTIVE_RUN_STATUSES, slotOfRunId, type SlotRecord } from '@drover/core';
import type { Clock, DroverKeys, RedisConnections } from '@drover/redis';
import { BullQueues } from '../queues/bull-queues';
import { QueuePolicyCache } from '../queues/queue-policy-cache';
import type { QueueRegistry } from '../queues/queue-registry.store';
import { KEY_UNLIMITED, KeyedRuns } from './keyed-runs';
import { BufferedRuns } from './buffered-runs';
import { ParkedRuns, type ParkedCursor, type ParkedPage, type ParkedRun, type ReplayResult } from './parked.store';
import { RECENT_RUNS_KEPT, RunIndex, type RunRef } from './run-index';
import { listQueueRunRefs, listQueueRuns, loadQueueRuns, type QueueRunRef, type QueueRunsQuery } from './run-listing';
import { ProducerCodes } from './producer-codes';
import { RunReading } from './run-read-context';
import { RunTombstones } from './run-tombstones';
import { RunCheckpoints } from './run-checkpoints';
import { runJobDataOf } from './run-job-data';
import { isWrongType, JOB_HASH_FIELD, readJobWithState } from './job-with-state';
import { runFromJob, type BullJobState, type RunView } from './run-view';
import { QueueEventHub } from '../queues/queue-event-hub';
import { RunWaiter } from './run-waiter';
import { readRunLogs, type RunLogPage } from './run-logs';
import { RoutineStatsStore } from '../routines/routine-stats.store';
import { RunWriter } from './run-writer';
import { RunApprovals } from './run-approvals';
import { BatchStore } from '../batches/batch.store';
import { RunCanceler, type CancelResult } from './run-cancel';
import { RunFlows } from './run-flows';
import type { EnqueueResult, NewRun, SkippedRun } from './new-run';

export { type EnqueueResult, type NewRun, type SkippedRun } from './new-run';

export { type CancelOutcome, type CancelResult } from './run-cancel';

/** A missing candidate younger than this may still be on its way in (index written before the job). */
const OPEN_GRACE_MS = 60_000;

/**
 * Runs, kept on their BullMQ jobs (see `RunJobData`); the run id is the job id. Which queue
 * holds a run is found by probing the defined queues (one HEXISTS each, sent together), so
 * enqueueing writes nothing beyond the job itself, plus two sorted-set entries for routine runs.
 */
export class RunStore {
  readonly bull: BullQueues;
  private readonly index: RunIndex;
  private readonly tombstones: RunTombstones;
  /** The process's BullMQ event readers, one per queue (waits here, the API's event streams). */
  readonly events: QueueEventHub;
  private readonly waiter: RunWaiter;
  private readonly parked: ParkedRuns;
  private readonly buffered: BufferedRuns;
  private readonly writer: RunWriter;
  /** Batches of runs and their callbacks (written through this store's writer). */
  readonly batches: BatchStore;
  /** What enqueue knows about the queues, kept until the registry announces a change. */
  readonly policies: QueuePolicyCache;
  /** Queue policies and producer names, for reading runs (see RunReading). */
  readonly reading: RunReading;
  /** Approves and rejects runs held back by their approval gate (see RunApprovals). */
  readonly approvals: RunApprovals;
  /** Per-key concurrency: held runs, places, release and repair. */
  readonly keyed: KeyedRuns;
  private readonly clock: Clock;
  private readonly checkpoints: RunCheckpoints;
  private readonly canceler: RunCanceler;
  /** Flows: runs that wait for their children (see RunFlows). */
  readonly flows: RunFlows;

  constructor(
    private readonly connections: RedisConnections,
    private readonly keys: DroverKeys,
    private readonly registry: QueueRegistry,
    opts: { bull: BullQueues; clock: Clock; stats: RoutineStatsStore },
  ) {
    this.bull = opts.bull;
    this.clock = opts.clock;
    this.index = new RunIndex(connections.command, keys);
    this.tombstones = new RunTombstones(connections.command, keys);
    this.checkpoints = new RunCheckpoints(connections.command, keys);
    this.events = new QueueEventHub(connections, this.bull);
    this.waiter = new RunWaiter(this.events);
    this.policies = new QueuePolicyCache(connections, registry, this.bull, this.clock);
    this.reading = new RunReading(this.policies, new ProducerCodes(connections.command, keys));
    this.keyed = new KeyedRuns(connections.command, this.bull, this.clock);
    this.writer = new RunWriter(
      connections,
      registry,
      this.bull,
      this.index,
      this.tombstones,
      this.clock,
      opts.stats,
      this.policies,
      this.reading.producers,
      this.keyed,
    );
    this.batches = new BatchStore({
      redis: connections.command,
      keys,
      clock: this.clock,
      requireQueue: (q) => registry.require(q),
      enqueueMany: (runs) => this.writer.enqueueMany(runs),
    });
    this.flows = new RunFlows({
      ...{ connections, bull: this.bull, registry, queues: this.policies, writer: this.writer },
      ...{ tombstones: this.tombstones, view: (queue, id) => this.viewIn(queue, id) },
    });
    this.buffered = new BufferedRuns(this.bull, (routine) => this.openRunsOfRoutine(routine));
    this.approvals = new RunApprovals({
      ...{ redis: connections.command, bull: this.bull, tombstones: this.tombstones, clock: this.clock },
      locate: (id) => this.locate(id),
      view: (queue, id) => this.viewIn(queue, id),
      retention: (q) => this.writer.retention(q),
      startBuffered: (routine) => this.startBuffered(routine),
    });
    this.canceler = new RunCanceler({
      ...{ redis: connections.command, keys, bull: this.bull, tombstones: this.tombstones, clock: this.clock },
      ...{ batches: this.batches, locate: (id) => this.locate(id), view: (queue, id) => this.viewIn(queue, id) },
      get: (id, queue) => this.get(id, queue),
      retention: (q) => this.writer.retention(q),
      startBuffered: (routine) => this.startBuffered(routine),
      settleKeyed: async (queue, key, id) =>
        this.keyed.settle(queue, key, (await this.writer.policy(queue))?.concurrencyKey?.limit ?? KEY_UNLIMITED, id),
    });
    this.parked = new ParkedRuns({
      bull: this.bull,
      redis: connections.command,
      tombstones: this.tombstones,
      reading: this.reading,
      enqueue: (run) => this.enqueue(run),
      retention: (q) => this.writer.retention(q),
      clock: this.clock,
    });
  }

  private get redis() {
    return this.connections.command;
  }

  /**
   * Adds a run to its queue. Idempotent on `id`: a second call (or a call for a run that was
   * skipped, canceled or replayed) creates nothing and answers `created: false`. Two calls racing
   * may both answer `created: true`, but only one job (one run) ever exists.
   */
  enqueue(run: NewRun): Promise<EnqueueResult> {
    return this.writer.enqueue(run);
  }

  /** {@link enqueue} for many runs at once (see RunWriter.enqueueMany for the order of work). */
  enqueueMany(runs: NewRun[]): Promise<EnqueueResult[]> {
    return this.writer.enqueueMany(runs);
  }

  /**
   * Starts the buffered run of a `buffer-one` routine if no other run of it is active (see
   * BufferedRuns); its id, or undefined. Idempotent: ask whenever a run of the routine may have ended.
   */
  startBuffered(routine: string): Promise<string | undefined> {
    return this.buffered.startNext(routine);
  }

  /** Records a fire that policy skipped: a run with status `skipped` that never reaches a worker. */
  recordSkipped(s: SkippedRun): Promise<{ id: string; created: boolean }> {
    return this.writer.recordSkipped(s);
  }

  /** Which defined queue holds a job with this id (undefined: none). */
  private async locate(id: string, hint?: string): Promise<string | undefined> {
    if (hint && (await this.isJob(this.bull.keys.bullJob(hint, id)))) return hint;
    const names = (await this.registry.list()).map((r) => r.def.name);
    const hits = await Promise.all(names.map((q) => this.isJob(this.bull.keys.bullJob(q, id))));
    return names.find((_, i) => hits[i]);
  }

  /**
   * Whether `key` holds a job. Not EXISTS: an id like `events`, `meta` or `<id>:logs` names one of
   * BullMQ's own keys (a stream, a hash of settings, a list), which are never runs.
   */
  private async isJob(key: string): Promise<boolean> {
    try {
      return (await this.redis.hexists(key, JOB_HASH_FIELD)) === 1;
    } catch (err) {
      if (isWrongType(err)) return false;
      throw err;
    }
  }

  private async viewIn(queue: string, id: string): Promise<RunView | undefined> {
    const { job, state } = await readJobWithState(this.bull.get(queue), id);
    if (!job) return undefined;
    // Only a run whose record says it has a checkpoint costs the read of it.
    const [ctx, checkpoint] = await Promise.all([
      this.reading.contextOf(queue, [job]),
      runJobDataOf(job.data).ck ? this.checkpoints.read(queue, id) : undefined,
    ]);
    return runFromJob(queue, job, state, checkpoint === undefined ? ctx : { ...ctx, checkpoint });
  }

  /** The run view, or null. `queue` (optional) saves the lookup when the caller knows it. */
  async get(id: string, queue?: string): Promise<RunView | null> {
    const found = await this.locate(id, queue);
    const view = found ? await this.viewIn(found, id) : undefined;
    // A parent read alone lists its children with their statuses.
    if (view?.flow?.children) view.flow.children = await this.flows.describe(view.flow.children);
    return view ?? (await this.tombstones.get(id)) ?? null;
  }

  /**
   * The run's log lines numbered `from` and after (see readRunLogs); null for an unknown run. A
   * run kept without its job (skipped, canceled before it ran) has none.
   */
  async logs(id: string, opts: { from?: number; limit?: number; queue?: string } = {}): Promise<RunLogPage | null> {
    const found = await this.locate(id, opts.queue);
    if (found) return readRunLogs(this.bull.get(found), id, opts.from, opts.limit);
    return (await this.tombstones.get(id)) ? { lines: [], next: Math.max(opts.from ?? 1, 1), dropped: 0 } : null;
  }

  /** {@link get} for each id, in order (null for an unknown one). */
  getMany(ids: string[]): Promise<(RunView | null)[]> {
    return Promise.all(ids.map((id) => this.get(id)));
  }

  /** The newest `limit` (at most 1000) runs in a routine's index, newest first, without reading them. */
  routineRunRefs(routine: string, limit: number): Promise<RunRef[]> {
    return this.index.recent(routine, 0, Math.min(Math.max(1, limit), 1000));
  }

  /**
   * The views of indexed runs (in order; undefined for one that is gone without a record), each
   * job read lean (see readLeanJobs: no value over the inline cap is loaded; `omitted` says what
   * was left out). Each run's state is read before its job (see readJobWithState).
   */
  async loadRuns(refs: readonly RunRef[]): Promise<(RunView | undefined)[]> {
    const states = await Promise.all(refs.map((r) => this.bull.get(r.queue).getJobState(r.id)));
    const live: QueueRunRef[] = [];
    const at: number[] = [];
    refs.forEach((r, i) => {
      if (states[i] === 'unknown') return;
      live.push({ ...r, state: states[i] as BullJobState });
      at.push(i);
    });
    const views = await loadQueueRuns(this.redis, this.bull, this.reading, live);
    const out: (RunView | undefined)[] = new Array<RunView | undefined>(refs.length);
    views.forEach((v, k) => (out[at[k]!] = v));
    return Promise.all(refs.map(async (r, i) => out[i] ?? (await this.tombstones.get(r.id))));
  }

  /** A routine's runs, newest first (from its index of the newest 1000), each read lean (see {@link loadRuns}). */
  async listByRoutine(routine: string, opts: { limit?: number; status?: RunView['status'] } = {}): Promise<RunView[]> {
    const limit = Math.min(Math.max(1, opts.limit ?? 50), 1000);
    const out: RunView[] = [];
    for (let offset = 0; out.length < limit; offset += 100) {
      const refs = await this.index.recent(routine, offset, 100);
      const views = await this.loadRuns(refs);
      for (const v of views) if (v && (!opts.status || v.status === opts.status) && out.length < limit) out.push(v);
      if (refs.length < 100) break;
    }
    return out;
  }

  /**
   * The runs and skipped records that name a slot of `routine` in `(from, to]` (the slot ledger's
   * records), from its index of the newest {@link RECENT_RUNS_KEPT}: one read of the index, then only
   * the matching runs, each lean. Runs older than the index or removed by retention are not found.
   */
  async slotRecords(routine: string, from: number, to: number): Promise<SlotRecord[]> {
    const refs = (await this.index.recent(routine, 0, RECENT_RUNS_KEPT)).filter((r) => {
      const at = slotOfRunId(routine, r.id);
      return at !== undefined && at.slot > from && at.slot <= to;
    });
    const views = await this.loadRuns(refs);
    return views.flatMap((v) =>
      v
        ? [
            {
              id: v.id,
              status: v.status,
              source: v.source,
              attempt: v.attempt,
              ...(v.reason !== undefined && { reason: v.reason }),
              ...(v.key !== undefined && { key: v.key }),
              ...(v.bufferedBehind !== undefined && { bufferedBehind: v.bufferedBehind }),
            },
          ]
        : [],
    );
  }

  /**
   * Runs across the defined queues (or only `queue`), newest first; see {@link listQueueRuns} for
   * what is and is not listed. Throws UnknownQueueError for an undefined `queue`.
   */
  async listRecent(query: QueueRunsQuery & { queue?: string } = {}): Promise<RunView[]> {
    return listQueueRuns(this.redis, this.bull, this.reading, await this.queuesOf(query.queue), query);
  }

  /**
   * {@link listRecent} as references, none read yet (see listQueueRunRefs): a page then reads
   * only the runs it shows, with {@link loadRecent}.
   */
  async recentRunRefs(query: QueueRunsQuery & { queue?: string } = {}): Promise<QueueRunRef[]> {
    return listQueueRunRefs(this.redis, this.bull, await this.queuesOf(query.queue), query);
  }

  /** The views of {@link recentRunRefs}, read lean (undefined for a run gone or moved meanwhile). */
  loadRecent(refs: readonly QueueRunRef[]): Promise<(RunView | undefined)[]> {
    return loadQueueRuns(this.redis, this.bull, this.reading, refs);
  }

  private async queuesOf(queue?: string): Promise<string[]> {
    return queue ? [(await this.registry.require(queue)).name] : (await this.registry.list()).map((r) => r.def.name);
  }

  /**
   * The routine's runs that are scheduled, queued or running anywhere in the cluster. Reads the
   * routine's open candidates and their real state; drops candidates that have ended (unless
   * `readOnly`: the plan never writes).
   */
  async openRunsOfRoutine(routine: string, opts: { readOnly?: boolean } = {}): Promise<RunView[]> {
    const refs = await this.index.openCandidates(routine);
    // Up to 1000 candidates: read lean, like a listing (their payloads are not needed here).
    const views = await this.loadRuns(refs);
    if (!opts.readOnly) {
      const now = this.clock.now();
      const ended = refs.filter((r, i) => {
        const v = views[i];
        return v ? !ACTIVE_RUN_STATUSES.includes(v.status) : now - r.createdAt > OPEN_GRACE_MS;
      });
      await this.index.dropOpen(routine, ended);
    }
    return views.filter((v): v is RunView => !!v && ACTIVE_RUN_STATUSES.includes(v.status));
  }

  /** Cancels a run (see RunCanceler). */
  cancel(id: string, reason = 'canceled'): Promise<CancelResult> {
    return this.canceler.cancel(id, reason);
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

  /** A page of the parked area, newest parked first, after a cursor (see {@link ParkedCursor}). */
  pageParked(queue: string, opts: { after?: ParkedCursor; limit?: number } = {}): Promise<ParkedPage> {
    return this.parked.page(queue, opts);
  }

  /** Ids of the runs parked within `(after, before)` (epoch ms), newest parked first; reads no job. */
  parkedIds(queue: string, opts: { before?: number; after?: number } = {}): Promise<string[]> {
    return this.parked.ids(queue, opts);
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
    await Promise.all([this.events.close(), this.policies.close(), this.flows.close()]);
  }
}
