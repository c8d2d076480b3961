import type { ApprovalGate, Backoff, RunSource } from '@drover/core';
import type { NewRun } from './new-run';
import type { ProducerCodes } from './producer-codes';

/**
 * What Drover keeps in a run's BullMQ job: `job.name` is the job type, `job.id` the run id, and
 * `job.data` this record (kept small: BullMQ reads it back on every start). Everything else about the run lives in BullMQ's own job fields
 * (attemptsStarted, attemptsMade, processedOn, finishedOn, returnvalue, failedReason, stacktrace,
 * progress, processedBy), so recording a run costs no write beyond what BullMQ already does.
 */
export interface RunJobData {
  /** Absent for an ad-hoc run. */
  routine?: string | null;
  /** Absent for `api` (the most common source). */
  source?: RunSource;
  /** The slot (epoch ms) for scheduled and catch-up runs; absent for ad-hoc runs. */
  scheduledFor?: number | null;
  /** A jittered slot's planned start (epoch ms, after `scheduledFor`): nothing starts the run before it. */
  startAt?: number;
  /** The producer's name, in full: runs written before producer codes, and until a producer has its code. */
  createdBy?: string;
  /** The producer's short code (see ProducerCodes); readers show its name. */
  by?: string;
  /** The parked run this one replays. */
  replayOf?: string;
  payload: unknown;
  /** Per-run overrides of the queue's policy (a run's own maxAttempts lives in job.opts.attempts). */
  timeoutMs?: number;
  backoff?: Backoff;
  /**
   * For a run armed ahead of its slot: the routine version it was armed for. The worker checks it
   * (with the slot's claim) before starting, so an edited, paused or deleted routine never starts a
   * run prepared for its old definition.
   */
  av?: number;
  /** A selector routine's candidate key this run serves (also in the payload). */
  key?: string;
  /**
   * A `buffer-one` run made while run `bb` of its routine was active: it was added delayed far
   * ahead and is promoted when the routine has no other active run (see BufferedRuns).
   */
  bb?: string;
  /** A run of a `buffer-one` routine: when it ends, the routine's buffered run may start (see BufferedRuns). */
  bo?: 1;
  /** For a slot of a routine with a `triggers` list: the trigger it is attributed to (its name, else its index). */
  trigger?: string;
  /**
   * The run's approval gate (see core's ApprovalGate): it was added held back until its expiry (or
   * a year) and is released when an operator approves it (see RunApprovals).
   */
  ap?: ApprovalGate;
  /** Set by a cancel request that reached the run while it was running; a restart sees it. */
  cancel?: { reason: string; at: number };
  /**
   * Attempts interrupted by a worker's graceful shutdown (handed back, not failed). BullMQ's
   * attemptsStarted counts them; Drover subtracts them so they do not use up the run's attempts.
   */
  interrupts?: number;
  /**
   * Only on a job a plain BullMQ producer added without `attempts`: the queue's maxAttempts when
   * its first attempt failed (a Drover run that overrides its queue's carries its own in
   * job.opts.attempts; one that does not follows the queue's current maxAttempts).
   */
  maxAttempts?: number;
  /** Set once the run has a checkpoint (in the job hash's own field, see RunCheckpoints): a later attempt reads it. */
  ck?: 1;
  /** The batch this run belongs to (see BatchStore): counted there once it settles. */
  batch?: string;
  /**
   * The run's concurrency key (see KeyedRuns): it was added held back and starts when its key has a
   * free place; when it settles, it frees that place.
   */
  ckey?: string;
  /** For a keyed run enqueued with a delay: when it is due (epoch ms); once it has its place it waits until then. */
  ckeyAt?: number;
  /**
   * A parent of a flow: its children as `[queue, id, jobType]`, in the order given. BullMQ keeps
   * only the pending ones (and the results of the finished); a child canceled before it started
   * leaves BullMQ altogether, so the parent keeps the whole list.
   */
  fc?: [string, string, string][];
  /** A child of a flow: its parent as `[queue, id]` (see RunFlows). */
  fp?: [string, string];
  /** A child of a flow whose failure its parent ignores (`onFailure: ignore`); absent: it fails the parent. */
  fi?: 1;
}

/**
 * What a canceled running run completes with: BullMQ has no "canceled" end state, so the run
 * completes (never retried, subject to retention) with this value as its returnvalue.
 */
export interface CanceledMarker {
  $droverCanceled: { reason: string; at: number };
}

export function canceledMarker(reason: string, at: number): CanceledMarker {
  return { $droverCanceled: { reason, at } };
}

export function isCanceledMarker(value: unknown): value is CanceledMarker {
  return typeof value === 'object' && value !== null && '$droverCanceled' in value;
}

/** Every field a Drover run's job data may hold: data with any other field is not Drover's. */
const RUN_JOB_DATA_FIELDS: ReadonlySet<string> = new Set<keyof RunJobData>([
  'routine',
  'source',
  'scheduledFor',
  'startAt',
  'createdBy',
  'by',
  'replayOf',
  'payload',
  'timeoutMs',
  'backoff',
  'av',
  'key',
  'bb',
  'bo',
  'trigger',
  'ap',
  'cancel',
  'interrupts',
  'maxAttempts',
  'ck',
  'batch',
  'ckey',
  'ckeyAt',
  'fc',
  'fp',
  'fi',
]);

/**
 * Whether a job's data is a record Drover wrote: an object holding only Drover's fields and
 * at least its payload. A job a plain BullMQ producer added (`queue.add(name, data)`) carries
 * its own data instead, whatever its shape.
 */
export function isRunJobData(data: unknown): data is RunJobData {
  if (typeof data !== 'object' || data === null || Array.isArray(data) || !('payload' in data)) return false;
  return Object.keys(data).every((k) => RUN_JOB_DATA_FIELDS.has(k));
}

/**
 * The run record of a job's data. A job added by a plain BullMQ producer is a run too: an ad-hoc
 * run whose payload is the job's data and whose source is `bullmq` (when Drover first has to
 * write on such a job it stores this record, so it stays a `bullmq` run).
 */
export function runJobDataOf(data: unknown): RunJobData {
  return isRunJobData(data) ? data : { payload: data, source: 'bullmq' };
}

/** The job data of a new run (RunWriter's jobs): only what the run has, the producer by its short code once known. */
export function runJobDataFor(run: NewRun, producers: Pick<ProducerCodes, 'codeOf'>): RunJobData {
  // Absent = null (source: api); the job type is the job's name. Every byte here is read back on
  // every start, and keeps the job hash compact while the record stays within 64 bytes.
  // The payload is always written (null for none): a record without it would read as a job
  // some plain BullMQ producer added (see isRunJobData).
  const data: RunJobData = { payload: run.payload ?? null };
  if (run.source !== 'api') data.source = run.source;
  if (run.routine !== null) data.routine = run.routine;
  if (run.scheduledFor !== null) data.scheduledFor = run.scheduledFor;
  if (run.startAt !== undefined) data.startAt = run.startAt;
  if (run.createdBy) {
    // The producer's short code once this process has it; the name in full until then.
    const by = producers.codeOf(run.createdBy);
    if (by !== undefined) data.by = by;
    else data.createdBy = run.createdBy;
  }
  if (run.replayOf) data.replayOf = run.replayOf;
  if (run.timeoutMs) data.timeoutMs = run.timeoutMs;
  if (run.backoff) data.backoff = run.backoff;
  if (run.armedVersion !== undefined) data.av = run.armedVersion;
  if (run.key !== undefined) data.key = run.key;
  if (run.bufferedBehind !== undefined) data.bb = run.bufferedBehind;
  if (run.releasesBuffered) data.bo = 1;
  if (run.trigger !== undefined) data.trigger = run.trigger;
  if (run.batch !== undefined) data.batch = run.batch;
  return data;
}
