import type { ApprovalPolicy, Backoff, RunSource } from '@drover/core';

/** What a producer (scheduler, api, client) asks for. Times are epoch ms. */
export interface NewRun {
  /** The run id, from the run maker (`newRunId`: one kind of id per source); also the BullMQ job id. */
  id: string;
  routine: string | null;
  jobType: string;
  queue: string;
  source: RunSource;
  scheduledFor: number | null;
  /** A jittered slot's planned start (after `scheduledFor`): the run waits for it (BullMQ's delay, then the worker). */
  startAt?: number;
  payload: unknown;
  /** Core's priority value (`priorityValue`: higher runs first); default 0 (medium). */
  priority?: number;
  delayMs?: number;
  /** Stored only when given; absent = the queue's maxAttempts at each attempt (its current policy). */
  maxAttempts?: number;
  createdBy?: string;
  replayOf?: string;
  /** Per-run overrides of the queue policy (a routine's own timeoutMs / backoff). */
  timeoutMs?: number;
  backoff?: Backoff;
  /** A routine's own approval gate, replacing its queue's (see core's approvalFor). */
  approval?: ApprovalPolicy;
  /**
   * Creates the run with a BullMQ deduplication marker: while it lives, adding a run with the same
   * `dedup.id` is a no-op (answered `created: false` with the run that holds it). With `ttlMs` it
   * lives that long even after retention removed the finished job — slot runs use their own id, so
   * a decision re-applied by another dispatcher never runs a slot twice; without, it lives until the
   * run finishes — a selector's override uses `override:<routine>:<key>`, one pending run per key.
   */
  dedup?: { id: string; ttlMs?: number };
  /** A selector routine's candidate key (also in the payload). */
  key?: string;
  /** For a slot of a routine with a `triggers` list: the trigger it is attributed to (its name, else its index). */
  trigger?: string;
  /** For a run armed ahead of its slot: the routine version it was armed for (checked when it starts). */
  armedVersion?: number;
  /** A `buffer-one` run that waits for this active run of its routine (give it a {@link BUFFERED_HOLD_MS} delay). */
  bufferedBehind?: string;
  /** A run of a `buffer-one` routine: its end may start the routine's buffered run. */
  releasesBuffered?: boolean;
  /**
   * Whether the run is listed among its routine's open runs (what `forbid`/`replace` and selectors
   * look at). The run maker sets it by its one rule (`tracksOpenRuns`); absent = listed.
   */
  trackOpen?: boolean;
  /** The producer ran core's `checkPayload` on the payload already (the client does, before anything else). */
  payloadChecked?: boolean;
  /**
   * The id was just drawn at random (an ad-hoc id): no job, record or marker can hold it, so the
   * existence check is skipped and the add is the only round trip. BullMQ's add is idempotent on
   * the job id all the same.
   */
  freshId?: boolean;
  /**
   * Also look for the id in every other defined queue: an idempotency key names one run wherever
   * it went, and a run found elsewhere answers `created: false` (the caller reports the conflict).
   */
  anyQueue?: boolean;
  /** The batch this run belongs to: its worker counts it there once it settles. */
  batch?: string;
  /** The enqueue option `concurrencyKey`: the run's key when its queue takes keys `source: option`. */
  concurrencyKey?: string;
}

/**
 * What enqueueing a run did: `created` false when it existed already (a job, a record, or a
 * deduplicated add); `existing` then names the run holding its deduplication marker, if another.
 */
export interface EnqueueResult {
  id: string;
  created: boolean;
  existing?: string;
}

export interface SkippedRun extends Pick<NewRun, 'trigger'> {
  id: string;
  routine: string | null;
  jobType: string;
  queue: string;
  source: RunSource;
  scheduledFor: number | null;
  reason: string;
}
