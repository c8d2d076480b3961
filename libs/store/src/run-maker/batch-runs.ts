import {
  batchCallbackPayload,
  DEFAULT_BATCH_JOB_TYPES,
  newBatchId,
  type BatchCallback,
  type BatchCallbackOn,
  type BatchCounts,
} from '@drover/core';
import type { NewRun } from '../runs/new-run';
import { newRunId } from './run-id';

/** A fresh batch id (`bt-<now base36>-<random>`): its callbacks' run ids derive from it. */
export function batchIdOf(now: number, random: () => number): string {
  return newBatchId(now, random);
}

/** The runs of a batch: each ad-hoc run (a fresh id, no idempotency key) marked with the batch. */
export function inBatch(batch: string, runs: readonly NewRun[]): NewRun[] {
  return runs.map((r) => ({ ...r, batch }));
}

/**
 * A batch's callback run. Its id derives from the batch (`<batch>.<on>`) and it carries a
 * deduplication marker under that id that outlives the run by `ttlMs`: a settle replayed after a
 * crash (or raced by another worker) adds nothing, even once retention removed the first callback.
 */
export function batchCallbackRun(
  batch: string,
  on: BatchCallbackOn,
  callback: BatchCallback,
  counts: BatchCounts,
  ctx: { defaultQueue: string; ttlMs: number; createdBy?: string },
): NewRun {
  const id = newRunId({ kind: 'batch-callback', batch, on });
  return {
    id,
    routine: null,
    jobType: callback.jobType ?? DEFAULT_BATCH_JOB_TYPES[on],
    queue: callback.queue ?? ctx.defaultQueue,
    source: 'api',
    scheduledFor: null,
    payload: batchCallbackPayload(batch, on, counts, callback),
    dedup: { id, ttlMs: ctx.ttlMs },
    ...(ctx.createdBy !== undefined && { createdBy: ctx.createdBy }),
  };
}
