import type { JobsOptions } from 'bullmq';
import {
  approvalFor,
  checkPayload,
  DEFAULT_RETENTION,
  InvalidPayloadError,
  openGate,
  resolveConcurrencyKey,
  type Queue,
  type Retention,
} from '@drover/core';
import type { Clock, RedisConnections } from '@drover/redis';
import type { BullQueues } from '../queues/bull-queues';
import type { QueueFacts, QueuePolicyCache } from '../queues/queue-policy-cache';
import type { QueueRegistry } from '../queues/queue-registry.store';
import { AddsTogether } from './adds-together';
import { KEY_HOLD_MS, type KeyedRuns } from './keyed-runs';
import { bullPriorityFor, isDefaultRank } from './run-ids';
import type { ProducerCodes } from './producer-codes';
import type { RunIndex } from './run-index';
import { runJobDataFor, type RunJobData } from './run-job-data';
import type { RunTombstones } from './run-tombstones';
import type { RoutineStatsStore, StatsBatch } from '../routines/routine-stats.store';
import type { RunView } from './run-view';
import type { EnqueueResult, NewRun, SkippedRun } from './new-run';

/** A run's BullMQ job: what `Queue.add` takes, its id among its options. */
type RunJob = { name: string; data: RunJobData; opts: JobsOptions & { jobId: string } };

/** Above this many existence checks a pipeline is cheaper than separate commands (ioredis builds one per call). */
const PIPELINE_FROM = 8;

/**
 * The write side of the run store: creating runs (idempotently, as BullMQ jobs) and recording
 * skipped fires. Kept apart from RunStore's reads so each stays small.
 */
export class RunWriter {
  constructor(
    private readonly connections: RedisConnections,
    private readonly registry: QueueRegistry,
    private readonly bull: BullQueues,
    private readonly index: RunIndex,
    private readonly tombstones: RunTombstones,
    private readonly clock: Clock,
    private readonly stats: RoutineStatsStore,
    private readonly queues: QueuePolicyCache,
    private readonly producers: ProducerCodes,
    private readonly keyed: KeyedRuns,
  ) {}

  private adds?: AddsTogether;

  private get redis() {
    return this.connections.command;
  }

  /** The command connection's adds, sent together per turn of the event loop (made on first use). */
  private get together(): AddsTogether {
    return (this.adds ??= new AddsTogether(this.connections.command));
  }

  /** The queue's policy (cached until the registry announces a change; enqueue is hot). */
  async policy(queue: string): Promise<Queue | undefined> {
    return (await this.queues.get(queue)).def;
  }

  /** How many finished-run records of `queue` are kept, and how long. */
  async retention(queue: string): Promise<Retention> {
    return (await this.policy(queue))?.retention ?? DEFAULT_RETENTION;
  }

  private jobOptions(run: NewRun, policy: Queue, ranked: boolean): JobsOptions & { jobId: string } {
    const delayed = !!run.delayMs && run.delayMs > 0;
    return {
      jobId: run.id,
      // The cluster's clock, not this machine's, where a time matters: BullMQ holds a delayed run
      // until timestamp + delay (a producer whose clock runs ahead must not release it early), and
      // a routine's run index and plan read it. An immediate ad-hoc run keeps BullMQ's own stamp:
      // every byte of `opts` counts (see below), and it only dates the run.
      ...((delayed || run.routine !== null) && { timestamp: this.clock.now() }),
      // Only a run's own attempts are stored: a run without follows its queue's current
      // maxAttempts, which the worker sets on the job it holds (as for the backoff, below).
      // `undefined`, not left out: BullMQ's Job starts from `{ attempts: 0, ...opts }` and would
      // store that 0 (16 bytes of every queued run); an undefined value overrides it and JSON drops
      // it. The worker int test (worker-attempts) reads the stored options.
      attempts: run.maxAttempts || undefined,
      // No `backoff` is stored: the worker sets Drover's strategy on the job it holds (BullMQ reads
      // it from memory when an attempt fails). Redis keeps a job hash compact (a listpack) only
      // while each field is at most 64 bytes; the options were over it, which more than tripled
      // the bytes of a queued run.
      ...(ranked && { priority: bullPriorityFor(run.source, run.priority ?? 0) }),
      ...(delayed && { delay: Math.round(run.delayMs!) }),
      ...(run.dedup && {
        deduplication: {
          id: run.dedup.id,
          ...(run.dedup.ttlMs !== undefined && { ttl: Math.max(1, Math.round(run.dedup.ttlMs)) }),
        },
      }),
      // Retention (removeOnComplete) is queue policy, applied by the workers; a failed job is a
      // parked run and stays until an operator replays or purges it.
    };
  }

  /**
   * The BullMQ job of a run. A run its queue or routine gates (see core's approvalFor) is held
   * back until its expiry, or a year, carrying its gate (see RunApprovals); the check reads only the
   * cached policy and the run, so an ungated run costs nothing more.
   */
  job(run: NewRun, policy: Queue, ranked: boolean): RunJob {
    const data = runJobDataFor(run, this.producers);
    const opts = this.jobOptions(run, policy, ranked);
    const approval = policy.approval || run.approval ? approvalFor(policy.approval, run.approval) : undefined;
    if (approval) {
      const now = this.clock.now();
      const dueAt = run.delayMs && run.delayMs > 0 ? now + run.delayMs : undefined;
      const { gate, holdMs } = openGate(approval, now, dueAt);
      data.ap = gate;
      opts.timestamp = now;
      opts.delay = holdMs;
    }
    // A keyed run is held back until its key has a free place (see KeyedRuns); a gated run is
    // held by its gate instead, and not counted against its key.
    const key = policy.concurrencyKey && !approval ? this.keyOf(run, policy) : undefined;
    if (key !== undefined) {
      const now = this.clock.now();
      data.ckey = key;
      if (run.delayMs && run.delayMs > 0) data.ckeyAt = now + Math.round(run.delayMs);
      opts.timestamp = now;
      opts.delay = KEY_HOLD_MS;
    }
    return { name: run.jobType, data, opts };
  }

  /** The run's concurrency key under its queue's policy (core's resolveConcurrencyKey); a bad one refuses the run. */
  private keyOf(run: NewRun, policy: Queue): string | undefined {
    const resolved = resolveConcurrencyKey(policy.concurrencyKey, run.payload, run.concurrencyKey);
    if ('issue' in resolved) throw new InvalidPayloadError(run.jobType, [resolved.issue]);
    return resolved.key;
  }

  /** Records a created keyed run in its key's held list, which may start it at once (one script call). */
  private async hold(queue: string, data: RunJobData, id: string, policy: Queue): Promise<void> {
    if (data.ckey !== undefined && policy.concurrencyKey) {
      await this.keyed.hold(queue, data.ckey, policy.concurrencyKey.limit, id);
    }
  }

  /**
   * Adds one run (see {@link enqueueMany}). The hot path: a fresh ad-hoc run of default rank into a
   * queue whose facts are cached is one BullMQ add, with nothing awaited before it; a keyed
   * (`anyQueue`) one is one guarded add ({@link enqueueGuarded}), also with nothing awaited before
   * it once the queue names are cached.
   */
  enqueue(run: NewRun): Promise<EnqueueResult> {
    if (run.anyQueue && !run.dedup && run.routine === null && !this.connections.isCluster) {
      const keyed = this.queues.peek(run.queue);
      if (keyed?.def && (keyed.ranked || isDefaultRank(run.source, run.priority ?? 0))) {
        const def = keyed.def;
        const names = this.queues.peekNames();
        if (names) return this.enqueueGuarded(run, def, keyed.ranked, names);
        return this.queues.queueNames().then((n) => this.enqueueGuarded(run, def, keyed.ranked, n));
      }
    }
    const facts = run.freshId && !run.dedup && run.routine === null ? this.queues.peek(run.queue) : undefined;
    if (!facts?.def || (!facts.ranked && !isDefaultRank(run.source, run.priority ?? 0))) {
      return this.enqueueMany([run]).then((r) => r[0]!);
    }
    let job: RunJob;
    try {
      this.checkPayload(run);
      job = this.job(run, facts.def, facts.ranked);
    } catch (err) {
      return Promise.reject(err);
    }
    const wait = this.connections.replicaWait;
    const ticket = wait.enabled ? wait.begin() : undefined;
    // Enqueues come in bursts (each caller's next call starts when its last is answered): the adds
    // started in this turn of the event loop reach Redis together (see AddsTogether).
    const add = this.together.add(this.bull.get(run.queue), job);
    // A keyed run takes one more step (its key's held list); a plain one none.
    const added =
      job.data.ckey === undefined ? add : add.then(() => this.hold(run.queue, job.data, run.id, facts.def!));
    if (!ticket) return added.then(() => ({ id: run.id, created: true }));
    return added.then(async () => {
      await wait.confirm(ticket, `run ${run.id}`);
      return { id: run.id, created: true };
    });
  }

  /**
   * An `anyQueue` run in one script call: BullMQ's own add, guarded by one EXISTS over every place
   * the run could be (its job in any defined queue `names`, its record). Not on Cluster, where
   * those keys live in different hash slots: there {@link enqueueMany} looks first, then adds.
   * Synchronous up to the script call (enqueue is hot); a run that needs nothing after its add
   * resolves straight from it.
   */
  private enqueueGuarded(
    run: NewRun,
    policy: Queue,
    ranked: boolean,
    names: readonly string[],
  ): Promise<EnqueueResult> {
    let job: RunJob;
    let guard: string[];
    try {
      this.checkPayload(run);
      guard = [this.bull.keys.bullJob(run.queue, run.id), this.tombstones.key(run.id)];
      for (const q of names) if (q !== run.queue) guard.push(this.bull.keys.bullJob(q, run.id));
      job = this.job(run, policy, ranked);
    } catch (err) {
      return Promise.reject(err);
    }
    // The add goes on the command connection, the one the replica wait watches.
    const wait = this.connections.replicaWait;
    const ticket = wait.enabled ? wait.begin() : undefined;
    const add = this.together.add(this.bull.get(run.queue), job, guard);
    if (job.data.ckey === undefined && !ticket) {
      return add.then((created) => ({ id: run.id, created }));
    }
    return add.then(async (created) => {
      if (created) await this.hold(run.queue, job.data, run.id, policy);
      if (ticket && created) await wait.confirm(ticket, `run ${run.id}`);
      return { id: run.id, created };
    });
  }

  checkPayload(run: NewRun): void {
    const issues = run.payloadChecked ? [] : checkPayload(run.payload);
    if (issues.length) throw new InvalidPayloadError(run.jobType, issues);
  }

  /**
   * Adds runs to their queues: one existence check and one BullMQ addBulk per queue. Idempotent on
   * the id: a run that exists (or was skipped, canceled or replayed) is not created again and answers
   * `created: false`. Two calls racing may both answer `created: true`, but only one job exists.
   *
   * Order of work: a queue serves its runs first in, first out until it first receives a run of
   * another rank (a manual trigger, a replay, or a priority other than medium). From then on the
   * queue is *ranked* (a flag next to its BullMQ keys) and every run carries a BullMQ priority:
   * manual before the rest, then by priority, then first in, first out (docs/core.md, "Priority order"). Runs already
   * waiting unranked at that moment are served first, once. BullMQ's prioritized set costs about
   * a quarter more Redis time per job than its wait list, so queues that never need it never pay.
   */
  async enqueueMany(runs: NewRun[]): Promise<EnqueueResult[]> {
    const byQueue = new Map<string, NewRun[]>();
    for (const run of runs) {
      this.checkPayload(run);
      const group = byQueue.get(run.queue);
      if (group) group.push(run);
      else byQueue.set(run.queue, [run]);
    }
    // Every queue is checked before any is written: an unknown one leaves the batch unwritten.
    const known = new Map<string, QueueFacts & { def: Queue }>();
    for (const queue of byQueue.keys()) {
      const facts = await this.queues.get(queue);
      known.set(queue, { ...facts, def: facts.def ?? (await this.registry.require(queue)) });
    }
    for (const run of runs) {
      const policy = known.get(run.queue)!.def;
      if (policy.concurrencyKey) this.keyOf(run, policy);
    }
    const outcome = new Map<string, EnqueueResult>();
    // With replicas to wait for, the runs count once they have them (see ReplicaWait).
    const wait = this.connections.replicaWait;
    const ticket = wait.enabled ? wait.begin() : undefined;
    let wrote = false;
    for (const [queue, group] of byQueue) {
      const facts = known.get(queue)!;
      const policy = facts.def;
      // A run exists as a job, as a record (skipped, canceled, replayed) or as the holder of its
      // deduplication marker (a slot run removed by retention, a pending override).
      const seen = await this.probe(queue, group);
      group.forEach((r, i) => outcome.set(r.id, seen[i]!));
      const fresh = group.filter((_, i) => seen[i]!.created);
      if (fresh.length === 0) continue;
      let ranked = facts.ranked;
      if (!ranked && fresh.some((r) => !isDefaultRank(r.source, r.priority ?? 0))) {
        await this.queues.markRanked(queue);
        ranked = true;
      }
      const jobs = fresh.map((r) => this.job(r, policy, ranked));
      wrote = true;
      const added =
        jobs.length === 1
          ? [await this.bull.get(queue).add(jobs[0]!.name, jobs[0]!.data, jobs[0]!.opts)]
          : await this.bull.get(queue).addBulk(jobs);
      // BullMQ answers a deduplicated add with the id of the job that holds the marker.
      added.forEach((job, i) => {
        const r = fresh[i]!;
        if (job.id !== r.id) outcome.set(r.id, { id: r.id, created: false, ...(job.id && { existing: job.id }) });
      });
      if (policy.concurrencyKey) {
        // Sent together (one write; Redis runs them in this order, so a key's runs stay first in, first out).
        await Promise.all(
          fresh.map((r, i) => (outcome.get(r.id)!.created ? this.hold(queue, jobs[i]!.data, r.id, policy) : undefined)),
        );
      }
      const withRoutine = fresh.filter((r) => r.routine !== null && outcome.get(r.id)!.created);
      if (withRoutine.length) {
        const addedAt = new Map(added.map((j) => [j.id, j.timestamp]));
        const pipe = this.redis.pipeline();
        for (const r of withRoutine) {
          const at = addedAt.get(r.id) ?? this.clock.now();
          this.index.add(pipe, r.routine!, { queue, id: r.id, createdAt: at }, r.trackOpen !== false);
        }
        await pipe.exec();
      }
    }
    if (ticket && wrote) await wait.confirm(ticket, runs.length === 1 ? `run ${runs[0]!.id}` : `${runs.length} runs`);
    return runs.map((r) => outcome.get(r.id) ?? { id: r.id, created: false });
  }

  /** Records a fire that policy skipped: a run with status `skipped` that never reaches a worker. */
  async recordSkipped(s: SkippedRun): Promise<{ id: string; created: boolean }> {
    const now = this.clock.now();
    const view: RunView = {
      id: s.id,
      routine: s.routine,
      jobType: s.jobType,
      queue: s.queue,
      source: s.source,
      scheduledFor: s.scheduledFor,
      status: 'skipped',
      reason: s.reason,
      ...(s.trigger !== undefined && { trigger: s.trigger }),
      attempt: 0,
      maxAttempts: (await this.policy(s.queue))?.maxAttempts ?? 1,
      createdAt: now,
      updatedAt: now,
      finishedAt: now,
    };
    if ((await this.redis.exists(this.bull.keys.bullJob(s.queue, s.id))) === 1) return { id: s.id, created: false };
    const created = await this.tombstones.create(view, await this.retention(s.queue), now);
    if (created && s.routine !== null) {
      // The routine's stats count the skip in the same round trip as its index entry.
      const batch: StatsBatch = new Map();
      this.stats.add(batch, s.routine, now, { status: 'skipped' });
      const pipe = this.index.add(
        this.redis.pipeline(),
        s.routine,
        { queue: s.queue, id: s.id, createdAt: now },
        false,
      );
      await this.stats.write(pipe, batch).exec();
    }
    return { id: s.id, created };
  }

  /**
   * For each run, in one round trip (none when every id is fresh): does its job or its record
   * exist — in any defined queue for `anyQueue` runs — and which run holds its deduplication marker.
   */
  private async probe(queue: string, group: NewRun[]): Promise<EnqueueResult[]> {
    if (group.every((r) => r.freshId && !r.dedup)) return group.map((r) => ({ id: r.id, created: true }));
    const others = group.some((r) => r.anyQueue) ? (await this.queues.queueNames()).filter((q) => q !== queue) : [];
    // Per run: one EXISTS over its keys (the count says whether any exists), or on Cluster, where
    // those keys live in different slots, one EXISTS per key; then GET of its marker.
    const cmds: [string, ...string[]][] = [];
    const shape: { exists: number; marker: boolean }[] = [];
    for (const r of group) {
      if (r.freshId && !r.dedup) continue;
      const keys = [this.bull.keys.bullJob(queue, r.id), this.tombstones.key(r.id)];
      if (r.anyQueue) for (const q of others) keys.push(this.bull.keys.bullJob(q, r.id));
      if (this.connections.isCluster) for (const k of keys) cmds.push(['exists', k]);
      else cmds.push(['exists', ...keys]);
      if (r.dedup) cmds.push(['get', this.bull.keys.bullDedup(queue, r.dedup.id)]);
      shape.push({ exists: this.connections.isCluster ? keys.length : 1, marker: !!r.dedup });
    }
    const values = await this.send(cmds);
    let i = 0;
    let s = 0;
    return group.map((r): EnqueueResult => {
      if (r.freshId && !r.dedup) return { id: r.id, created: true };
      const { exists: n, marker } = shape[s++]!;
      let found = false;
      for (let k = 0; k < n; k++) found = (values[i++] as number) > 0 || found;
      const holder = marker ? (values[i++] as string | null) : null;
      if (found) return { id: r.id, created: false };
      if (holder) return { id: r.id, created: false, ...(holder !== r.id && { existing: holder }) };
      return { id: r.id, created: true };
    });
  }

  /** GET/EXISTS commands in one round trip: a pipeline for many, separate commands written together for a few. */
  private async send(cmds: [string, ...string[]][]): Promise<unknown[]> {
    const one = ([c, ...k]: [string, ...string[]]) => (c === 'get' ? this.redis.get(k[0]!) : this.redis.exists(...k));
    if (this.connections.isCluster || cmds.length < PIPELINE_FROM) return Promise.all(cmds.map(one));
    const pipe = this.redis.pipeline();
    for (const [c, ...k] of cmds) {
      if (c === 'get') pipe.get(k[0]!);
      else pipe.exists(...k);
    }
    return ((await pipe.exec()) ?? []).map(([err, v]) => {
      if (err) throw err;
      return v;
    });
  }
}
