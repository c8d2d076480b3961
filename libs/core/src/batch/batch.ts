import { z } from 'zod';
import { MAX_JOB_TYPE_LENGTH } from '../model/limits';
import { NAME_PATTERN } from '../model/name.schema';
import type { BatchCallbackOn, BatchStatus } from './batch-words';

/** At most this many runs in one batch: its record and its runs are written in bounded time. */
export const MAX_BATCH_RUNS = 10_000;

/**
 * An open batch lives this long at most: one whose runs never all settle (removed by hand, a
 * producer that died between the record and its runs) expires instead of staying open for ever.
 */
export const OPEN_BATCH_TTL_MS = 30 * 24 * 3_600_000;

/**
 * A complete batch (and its callbacks' deduplication markers) is kept at least this long, however
 * short its queues' retention: a settle replayed after a crash must still find it fired.
 */
export const MIN_BATCH_KEEP_MS = 24 * 3_600_000;

/** The job types a callback runs when none is named. */
export const DEFAULT_BATCH_JOB_TYPES: Record<BatchCallbackOn, string> = {
  complete: 'batch.complete',
  success: 'batch.success',
};

/** A callback: the run enqueued once the batch settles (queue and job type default as for any run). */
export const batchCallbackSchema = z.strictObject({
  queue: z.string().regex(NAME_PATTERN, { message: 'is not a queue name ([a-z0-9][a-z0-9._-]{0,127})' }).optional(),
  jobType: z.string().min(1).max(MAX_JOB_TYPE_LENGTH).optional(),
  payload: z.unknown().optional(),
});
export type BatchCallback = z.infer<typeof batchCallbackSchema>;

/** A batch's callbacks, as stored on its record. */
export interface BatchCallbacks {
  onComplete?: BatchCallback;
  onSuccess?: BatchCallback;
}

/** A batch's counters: how many runs it has and how many settled each way. */
export interface BatchCounts {
  total: number;
  succeeded: number;
  parked: number;
  canceled: number;
}

/** Progress as every face shows it: settled of total, failed (parked) among them. */
export interface BatchProgress extends BatchCounts {
  settled: number;
  status: BatchStatus;
  /** Whole percent settled, 0-100 (a progress bar's width). */
  percent: number;
}

export function batchProgress(c: BatchCounts): BatchProgress {
  const settled = c.succeeded + c.parked + c.canceled;
  const complete = c.total > 0 && settled >= c.total;
  return {
    ...c,
    settled,
    status: complete ? 'complete' : 'open',
    percent: c.total === 0 ? 0 : Math.min(100, Math.floor((settled * 100) / c.total)),
  };
}

/**
 * Which callbacks fire for a batch that just completed: `complete` always, `success` only when
 * no run was parked or canceled. Empty for a batch still open.
 */
export function callbacksDue(c: BatchCounts, callbacks: BatchCallbacks): BatchCallbackOn[] {
  if (batchProgress(c).status !== 'complete') return [];
  const due: BatchCallbackOn[] = [];
  if (callbacks.onComplete) due.push('complete');
  if (callbacks.onSuccess && c.parked === 0 && c.canceled === 0 && c.succeeded === c.total) due.push('success');
  return due;
}

/** What a callback run receives: the batch, which callback this is, the counts and the caller's payload. */
export interface BatchCallbackPayload extends BatchCounts {
  batch: string;
  on: BatchCallbackOn;
  payload: unknown;
}

export function batchCallbackPayload(
  batch: string,
  on: BatchCallbackOn,
  c: BatchCounts,
  callback: BatchCallback,
): BatchCallbackPayload {
  return {
    batch,
    on,
    total: c.total,
    succeeded: c.succeeded,
    parked: c.parked,
    canceled: c.canceled,
    payload: callback.payload ?? null,
  };
}

/** A batch's callbacks as a caller gives them (`enqueueBatch(runs, { onComplete, onSuccess })`). */
export const batchCallbacksSchema = z.strictObject({
  onComplete: batchCallbackSchema.optional(),
  onSuccess: batchCallbackSchema.optional(),
});

/**
 * Checks a caller's callbacks and fills in the default queue (so the record names the queue the
 * callback will go to, whatever the defaults are when it fires); issues as `field: message`.
 */
export function parseBatchCallbacks(
  input: unknown,
  defaultQueue: string,
): { callbacks: BatchCallbacks; issues?: undefined } | { issues: string[] } {
  const res = batchCallbacksSchema.safeParse(input ?? {});
  if (!res.success) return { issues: res.error.issues.map((i) => `${i.path.join('.') || '(options)'}: ${i.message}`) };
  const callbacks: BatchCallbacks = {};
  if (res.data.onComplete)
    callbacks.onComplete = { ...res.data.onComplete, queue: res.data.onComplete.queue ?? defaultQueue };
  if (res.data.onSuccess)
    callbacks.onSuccess = { ...res.data.onSuccess, queue: res.data.onSuccess.queue ?? defaultQueue };
  return { callbacks };
}
