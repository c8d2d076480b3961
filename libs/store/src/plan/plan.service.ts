import type { Job } from 'bullmq';
import {
  plan,
  type PlanResult,
  type PlanState,
  type QueuedRun,
  type QueueState,
  type RoutineState as PlanRoutineState,
} from '@drover/core';
import type { Clock, RedisClient } from '@drover/redis';
import type { BullQueues } from '../queues/bull-queues';
import type { QueueRegistry } from '../queues/queue-registry.store';
import type { RoutineStore } from '../routines/routine.store';
import { priorityValueOfBull } from '../runs/run-ids';
import type { RunJobData } from '../runs/run-job-data';
import type { SlotSkips } from '../routines/slot-skips.store';
import type { RunStore } from '../runs/run.store';
import type { WorkerCatalog } from '../workers/worker-catalog.store';

/** How much of each queue the plan reads: it is bounded however long the queues are. */
export interface PlanLimits {
  /** Waiting runs read per queue (each of waiting, prioritized, delayed). Default 100. */
  runsPerQueue?: number;
  /** Parked run ids read per queue. Default 100. */
  parkedPerQueue?: number;
}

/** What `PlanService.plan` answers: core's plan of the real state, and which queues were read only in part. */
export type ClusterPlan = PlanResult & { truncated: string[] };

/** BullMQ's delayed score is `(timestamp + delay) × 0x1000 + a counter`; the first part is when it is due. */
const dueAtOfDelayedScore = (score: number): number => Math.floor(score / 0x1000);

/**
 * The read-only plan (docs/core.md): assembles the cluster's real state from Redis — routines with their
 * cursor, launcher, pause and open runs; per queue its limits, paused flag, running count, consuming
 * workers, the next waiting runs and the parked ones — and hands it to core's pure `plan(now, state)`,
 * which says what fires next, what would be leased next and why everything else waits. Never writes.
 */
export class PlanService {
  constructor(
    private readonly deps: {
      routines: RoutineStore;
      registry: QueueRegistry;
      bull: BullQueues;
      catalog: WorkerCatalog;
      runs: RunStore;
      skips: SlotSkips;
      redis: RedisClient;
      clock: Clock;
    },
  ) {}

  async plan(limits: PlanLimits = {}): Promise<ClusterPlan> {
    const { state, truncated } = await this.state(limits);
    return { ...plan(this.deps.clock.now(), state), truncated };
  }

  /** The state the plan is made of (bounded by `limits`). */
  async state(limits: PlanLimits = {}): Promise<{ state: PlanState; truncated: string[] }> {
    const [records, queues, workers] = await Promise.all([
      this.deps.routines.list(),
      this.deps.registry.list(),
      this.deps.catalog.list(),
    ]);
    const states = await this.deps.routines.getStates(records.map((r) => r.def.name));
    const routines: PlanRoutineState[] = await Promise.all(
      records.map(async (rec) => {
        const st = states.get(rec.def.name)!;
        const overlapMatters = rec.def.concurrencyPolicy !== 'allow' && rec.def.status === 'active';
        return {
          routine: rec.def,
          lastSlot: st.lastSlot ?? st.since ?? rec.createdAt,
          launcher: st,
          ...(rec.pause && { pause: rec.pause }),
          runs: overlapMatters ? await this.deps.runs.openRunsOfRoutine(rec.def.name, { readOnly: true }) : [],
          ...(rec.def.status === 'active' && { skips: await this.deps.skips.pending(rec.def.name) }),
        };
      }),
    );
    const truncated: string[] = [];
    const queueStates = await Promise.all(
      queues.map(async ({ def }) => {
        const consuming = workers.filter((w) => !w.draining && w.queues.some((q) => q.name === def.name)).length;
        const read = await this.readQueue(def.name, limits);
        if (read.truncated) truncated.push(def.name);
        return { queue: def, workers: consuming, ...read.state } satisfies QueueState;
      }),
    );
    return { state: { queues: queueStates, routines }, truncated };
  }

  private async readQueue(
    name: string,
    limits: PlanLimits,
  ): Promise<{ state: Omit<QueueState, 'queue' | 'workers'>; truncated: boolean }> {
    const q = this.deps.bull.get(name);
    const n = Math.max(1, limits.runsPerQueue ?? 100);
    const [paused, counts, waiting, prioritized, delayed, delayedScores, parked] = await Promise.all([
      q.isPaused(),
      q.getJobCounts('active', 'wait', 'prioritized', 'delayed'),
      q.getJobs(['wait'], 0, n - 1, true) as Promise<Job<RunJobData>[]>,
      q.getJobs(['prioritized'], 0, n - 1, true) as Promise<Job<RunJobData>[]>,
      q.getJobs(['delayed'], 0, n - 1, true) as Promise<Job<RunJobData>[]>,
      this.deps.redis.zrange(this.deps.bull.keys.bullDelayed(name), '0', String(n - 1), 'WITHSCORES'),
      q.getRanges(['failed'], 0, Math.max(1, limits.parkedPerQueue ?? 100) - 1, false),
    ]);
    const dueAt = new Map<string, number>();
    for (let i = 0; i + 1 < delayedScores.length; i += 2) {
      dueAt.set(delayedScores[i]!, dueAtOfDelayedScore(Number(delayedScores[i + 1])));
    }
    const toQueued = (job: Job<RunJobData>, delayed: boolean): QueuedRun | undefined => {
      if (!job?.id) return undefined;
      const d = job.data;
      const readyAt = d.scheduledFor ?? job.timestamp;
      const due = delayed ? dueAt.get(job.id) : undefined;
      const retry = delayed && (job.attemptsStarted ?? 0) > 0;
      return {
        id: job.id,
        routine: d.routine ?? null,
        source: d.source ?? 'api',
        scheduledFor: delayed && !retry && due !== undefined ? Math.max(readyAt, due) : readyAt,
        ...(job.opts.priority && { priority: priorityValueOfBull(job.opts.priority) }),
        ...(retry && due !== undefined && { nextAttemptAt: due }),
        // A buffered run waits for its routine's active run, not for its (far) delay.
        ...(delayed && !retry && d.bb !== undefined && { bufferedBehind: d.bb }),
      };
    };
    const runs = [
      ...waiting.map((j) => toQueued(j, false)),
      ...prioritized.map((j) => toQueued(j, false)),
      ...delayed.map((j) => toQueued(j, true)),
    ].filter((r): r is QueuedRun => !!r);
    const truncated = [counts.wait, counts.prioritized, counts.delayed].some((c) => (c ?? 0) > n);
    return { state: { paused, running: counts.active ?? 0, waiting: runs, parked }, truncated };
  }
}
