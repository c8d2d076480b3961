import {
  approvalViewOf,
  CHILD_FAILED_REASON,
  REJECTED_REASON,
  decodeCheckpoint,
  type ApprovalView,
  type ParkReason,
  type Run,
  type RunCheckpoint,
  type RunStatus,
} from '@drover/core';
import { decodeAttempts, type AttemptRecord } from './attempt-log';
import { failedChildOf, flowViewOf, type RunFlowView } from './flow-view';
import type { OmittedPart } from './lean-jobs';
import { KEY_HOLD_MS } from './keyed-runs';
import { priorityValueOfBull } from './run-ids';
import { isCanceledMarker, runJobDataOf, type RunJobData } from './run-job-data';

/**
 * The run view of the API. Like core's `Run`, except that `scheduledFor` is null for ad-hoc runs,
 * and it carries the attempt log (`errors`, always for parked runs) and replay lineage.
 */
export type RunView = Omit<Run, 'scheduledFor'> & {
  scheduledFor: number | null;
  /** Every failed attempt, oldest first (for parked runs: the whole story). */
  errors?: AttemptRecord[];
  replayOf?: string;
  /** Set on a parked run once an operator replayed it as a new run. */
  replayedAs?: string;
  /** A selector routine's candidate key this run serves. */
  key?: string;
  /**
   * A `buffer-one` run made while this other run of its routine was active: while its status is
   * `scheduled` it waits for the routine's active run to end; after, it tells that it waited.
   */
  bufferedBehind?: string;
  /** For a slot of a routine with a `triggers` list: the trigger it is attributed to (its name, else its index). */
  trigger?: string;
  /** A run of a queue or routine that requires approval: where its approval stands, who decided, when, why. */
  approval?: ApprovalView;
  /** The last checkpoint its handler recorded (`ctx.checkpoint`); read with the run alone, never in a listing. */
  checkpoint?: RunCheckpoint;
  /** The batch the run belongs to. */
  batch?: string;
  /** The run's concurrency key, when its queue limits runs per key. */
  concurrencyKey?: string;
  /** Set while a flow's parent waits for its children to finish. */
  waitingForChildren?: true;
  /** Set while the run is held back because its key runs as many runs as its limit allows. */
  waitingForKey?: true;
  /** The run's place in a flow: its parent, and its children (their statuses when the run is read alone). */
  flow?: RunFlowView;
  /** What a listing left out of this run (too long to inline); reading the run alone has it all. */
  omitted?: OmittedPart[];
};

/** BullMQ's job states as `Job.getState()` / `Queue.getJobState()` report them. */
export type BullJobState =
  'completed' | 'failed' | 'delayed' | 'active' | 'waiting' | 'waiting-children' | 'prioritized' | 'unknown';

/** The part of a BullMQ job the view is derived from (a `Job` satisfies it). */
export interface JobSnapshot {
  id?: string;
  name: string;
  /** Drover's run record, or the data of a job a plain BullMQ producer added (see runJobDataOf). */
  data: RunJobData | unknown;
  opts: { attempts?: number; priority?: number };
  timestamp: number;
  delay?: number;
  processedOn?: number;
  finishedOn?: number;
  attemptsMade: number;
  attemptsStarted?: number;
  returnvalue?: unknown;
  failedReason?: string;
  stacktrace?: string[] | null;
  progress?: unknown;
  processedBy?: string;
}

/** The attempt a job is in (or last made), 1-based; 0 before its first start. */
export function attemptOf(job: Pick<JobSnapshot, 'attemptsStarted' | 'data'>): number {
  return Math.max(0, (job.attemptsStarted ?? 0) - (runJobDataOf(job.data).interrupts ?? 0));
}

/** A keyed run still held back for its key's place (added with {@link KEY_HOLD_MS}, not yet promoted). */
function heldForKey(job: JobSnapshot): boolean {
  return runJobDataOf(job.data).ckey !== undefined && (job.delay ?? 0) >= KEY_HOLD_MS;
}

function statusOf(state: BullJobState, job: JobSnapshot): RunStatus | undefined {
  switch (state) {
    case 'completed':
      return isCanceledMarker(job.returnvalue) ? 'canceled' : 'succeeded';
    case 'failed':
      return 'parked';
    case 'active':
      return 'running';
    case 'delayed': {
      // A delay before the first start is a future runAt (or an approval gate holding the run
      // back); after a start it is a retry backoff.
      // A gate still waiting never let a handler start (a worker handed it early gave it back);
      // rejected, it is settled, though its job may linger a moment before it is removed.
      const gate = runJobDataOf(job.data).ap?.s;
      if (gate === 'w') return 'awaiting-approval';
      if (gate === 'r') return 'canceled';
      // Held for its key's place: queued, as it would be in a queue without keys (unless it was
      // enqueued with a delay, which it still waits out once it has its place).
      if (heldForKey(job) && runJobDataOf(job.data).ckeyAt === undefined) return 'queued';
      return (job.attemptsStarted ?? 0) > 0 ? 'queued' : 'scheduled';
    }
    case 'waiting':
    case 'prioritized':
    case 'waiting-children':
      return 'queued';
    default:
      return undefined;
  }
}

function parkReason(errors: AttemptRecord[]): ParkReason {
  const last = errors[errors.length - 1];
  if (last?.kind === 'lease-expired') return 'lease-expired';
  if (last?.kind === 'permanent' || last?.kind === 'invalid-payload') return 'permanent-error';
  return 'attempts-exhausted';
}

/** What a run's job leaves to its reader (see RunReading): the queue's current policy, the producers' names. */
export interface RunReadContext {
  /** The queue's maxAttempts now (a run that stores none follows it); absent for an undefined queue. */
  maxAttempts?: number;
  /** The name of a producer code; the code itself when unknown. */
  producerName?: (code: string) => string;
  /** The run's stored checkpoint (see RunCheckpoints), read when its record says it has one. */
  checkpoint?: string;
}

/** Derives the run view from a BullMQ job and its state; undefined if the job is gone. Pure. */
export function runFromJob(
  queue: string,
  job: JobSnapshot & { id: string },
  state: BullJobState,
  ctx: RunReadContext = {},
): RunView | undefined {
  const status = statusOf(state, job);
  if (!status) return undefined;
  const d = runJobDataOf(job.data);
  // A run stores `attempts` only when it overrides its queue's (BullMQ reads a job without as
  // `attempts: 0`); a plain BullMQ job keeps the queue's from its first failure in the data.
  const maxAttempts = job.opts.attempts || d.maxAttempts || ctx.maxAttempts || 1;
  // The attempt log keeps the same order as the run's own times (see startedAt below): an attempt
  // stamped by a worker's clock a few ms behind the producer's does not start before the run exists.
  const errors = decodeAttempts(job.stacktrace).map((e) =>
    e.startedAt !== undefined && e.startedAt < job.timestamp
      ? { ...e, startedAt: job.timestamp, failedAt: Math.max(e.failedAt, job.timestamp) }
      : e,
  );
  const last = errors[errors.length - 1];
  const times = [job.timestamp, job.processedOn ?? 0, job.finishedOn ?? 0, last?.failedAt ?? 0];
  const view: RunView = {
    id: job.id,
    routine: d.routine ?? null,
    jobType: job.name,
    queue,
    source: d.source ?? 'api',
    scheduledFor: d.scheduledFor ?? null,
    status,
    // A run parked at the start of a restart (its last attempt lost to a lease) began no new attempt.
    attempt: Math.min(attemptOf(job), maxAttempts),
    maxAttempts,
    payload: d.payload,
    createdAt: job.timestamp,
    updatedAt: Math.max(...times),
    queuedAt: job.timestamp,
  };
  // Core's priority value (higher first); a run of an unranked queue has the default, 0.
  view.priority = job.opts.priority ? priorityValueOfBull(job.opts.priority) : 0;
  // Runs written before producer codes carry the name in full.
  if (d.createdBy) view.createdBy = d.createdBy;
  else if (d.by !== undefined) view.createdBy = ctx.producerName?.(d.by) ?? d.by;
  if (d.replayOf) view.replayOf = d.replayOf;
  if (d.key !== undefined) view.key = d.key;
  if (d.bb !== undefined) view.bufferedBehind = d.bb;
  if (d.trigger !== undefined) view.trigger = d.trigger;
  if (d.ap !== undefined) {
    const ended = isCanceledMarker(job.returnvalue) ? job.returnvalue.$droverCanceled : undefined;
    view.approval = approvalViewOf(d.ap, ended);
  }
  if (d.batch !== undefined) view.batch = d.batch;
  if (d.ckey !== undefined) view.concurrencyKey = d.ckey;
  if (state === 'delayed' && heldForKey(job)) view.waitingForKey = true;
  const flow = flowViewOf(d);
  if (flow) view.flow = flow;
  if (state === 'waiting-children') view.waitingForChildren = true;
  if (job.processedBy) view.worker = job.processedBy;
  // The run started with its first attempt: BullMQ's processedOn is the latest attempt's start
  // (a run parked after three quick retries read "parked in 3ms"); the attempt log keeps the first.
  const firstStart = errors[0]?.attempt === 1 ? errors[0].startedAt : undefined;
  const startedAt = firstStart ?? job.processedOn;
  // createdAt of a routine's run is the cluster's clock, processedOn and finishedOn the worker's
  // own: a few ms apart, they could show a run started before it was created. The order is certain
  // (a job is added before it is taken, and taken before it finishes), so the view keeps it.
  if (startedAt) view.startedAt = Math.max(startedAt, view.createdAt);
  if (job.finishedOn && (status === 'succeeded' || status === 'canceled' || status === 'parked')) {
    view.finishedAt = Math.max(job.finishedOn, view.startedAt ?? view.createdAt);
  }
  if (job.progress !== undefined && job.progress !== 0) view.progress = job.progress;
  const checkpoint = decodeCheckpoint(ctx.checkpoint);
  if (checkpoint) view.checkpoint = checkpoint;
  if (last) view.error = { message: last.message, ...(last.stack && { stack: last.stack }) };
  else if (job.failedReason) view.error = { message: job.failedReason };
  const failedChild = status === 'parked' ? failedChildOf(d, job.failedReason) : undefined;
  if (failedChild) {
    // Parked for its child by BullMQ, which records its own error as the only attempt: the
    // parent's handler never ran.
    view.errors = [];
    view.reason = CHILD_FAILED_REASON;
    view.error = { message: `child run ${failedChild.id} (${failedChild.jobType}, queue ${failedChild.queue}) failed` };
  } else if (status === 'parked') {
    view.errors = errors;
    view.reason = parkReason(errors);
    if (last?.kind === 'permanent' || last?.kind === 'invalid-payload') view.error!.permanent = true;
  } else if (errors.length) view.errors = errors;
  if (status === 'canceled' && isCanceledMarker(job.returnvalue)) {
    view.reason = job.returnvalue.$droverCanceled.reason;
    view.finishedAt = job.returnvalue.$droverCanceled.at;
  } else if (status === 'canceled' && d.ap?.s === 'r') {
    view.reason = d.ap.r ?? REJECTED_REASON;
    view.finishedAt = d.ap.at ?? view.updatedAt;
  } else if (status === 'succeeded' && job.returnvalue !== undefined && job.returnvalue !== null) {
    view.result = job.returnvalue;
  }
  return view;
}
