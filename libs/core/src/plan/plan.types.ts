import type { Queue } from '../model/queue.schema';
import type { Pause } from '../model/pause';
import type { Routine } from '../model/routine.schema';
import type { LauncherState } from '../policy/launcher.policy';
import type { OverlapRun } from '../policy/overlap.policy';
import type { SkipReason } from '../policy/skip-reason';
import type { RunSource } from '../run/run-status';
import type { Run } from '../run/run.schema';

/** A run waiting in a queue (status `queued`), as the plan needs it. */
export type QueuedRun = Pick<Run, 'id' | 'routine' | 'source' | 'scheduledFor'> &
  Partial<Pick<Run, 'priority' | 'nextAttemptAt'>> & {
    /** A `buffer-one` run that has not started: it waits for this run of its routine to end. */
    bufferedBehind?: string;
  };

export interface QueueState {
  queue: Queue;
  /** The queue is paused: nothing starts. */
  paused?: boolean;
  /** Runs currently running cluster-wide. */
  running: number;
  /** Worker processes consuming this queue; capacity is `concurrency × workers`. Unset = not limited by workers. */
  workers?: number;
  /** Queued runs (including delayed retries, whose `nextAttemptAt` may lie in the future). */
  waiting: readonly QueuedRun[];
  /** Ids of parked runs: held until an operator acts, never started by the plan. */
  parked?: readonly string[];
}

export interface RoutineState {
  routine: Routine;
  /** Latest slot already fired or recorded (epoch ms). */
  lastSlot: number;
  launcher?: LauncherState;
  /** While paused: why and until when (shown with the `paused` reason). */
  pause?: Pause;
  /** The routine's runs (only scheduled/queued/running matter, for overlap; a buffered one says so). */
  runs?: readonly OverlapRun[];
  /** Pending operator skips, by slot (epoch ms). */
  skips?: ReadonlyMap<number, { by: string }>;
}

export interface PlanState {
  queues: readonly QueueState[];
  routines: readonly RoutineState[];
  /** Exponent weight in weighted staleness. Default 1. */
  depthWeight?: number;
}

export type WaitReason =
  | 'paused' // routine paused (or archived)
  | 'queue-paused'
  | 'ceiling-reached' // queue capacity (globalConcurrency / concurrency × workers) is full
  | 'no-workers' // no worker process consumes the queue
  | 'backing-off' // launcher backoff, or a retry's delay not yet over
  | 'not-yet-due' // a queued run whose scheduledFor lies in the future (delayed job)
  | 'disabled' // launcher disabled after maxLaunchFailures
  | 'parked'
  | 'overlap' // concurrencyPolicy forbid and a run is still active; buffer-one: buffered behind one, or the buffer is full
  | 'queue-unknown'; // the routine's queue is not in the state

export type PlanSubject = { kind: 'routine'; name: string } | { kind: 'run'; id: string; queue: string };

export interface PlannedFire {
  routine: string;
  queue: string;
  slot: number;
  source: RunSource;
  runId: string;
  /** Run ids to cancel first (concurrencyPolicy `replace`). */
  cancel: string[];
  /** concurrencyPolicy `buffer-one`: the active runs this fire's run waits for (it starts when they end). */
  behind?: string[];
  /** When its run is planned to start, if later than the slot (the routine's `jitterMs`). */
  start?: number;
}

export interface PlannedStart {
  runId: string;
  queue: string;
  routine: string | null;
  /** True if this run does not exist yet: it is one of `fires`. */
  fromFire: boolean;
}

export interface PlanResult {
  now: number;
  /** What would fire now, by routine name then slot. */
  fires: PlannedFire[];
  /** Slots that would be recorded as skipped, by routine then slot. */
  skips: { routine: string; slot: number; reason: SkipReason }[];
  /** What would be leased next, per queue in priority order (queues by name). */
  starts: PlannedStart[];
  /** Everything that waits, and why (`until`: epoch ms when the reason lapses, when known). */
  waiting: { subject: PlanSubject; reason: WaitReason; until?: number; detail?: string }[];
  /** Next fire time of each active routine after `now`, by routine name. */
  upcoming: { routine: string; at: number; start?: number }[];
}
