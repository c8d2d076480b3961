import {
  InvalidOptionsError,
  MAX_BATCH_RUNS,
  parseBatchCallbacks,
  RedisOutOfMemoryError,
  type BatchCallback,
} from '@drover/core';
import { batchIdOf, type AdHocItem, type BatchStore, type BatchView } from '@drover/store';

/** The callbacks of {@link DroverClient.enqueueBatch}: each a run enqueued once when the batch settles. */
export interface BatchOptions {
  /** Enqueued once every run settled (succeeded, parked or canceled). */
  onComplete?: BatchCallback;
  /** Enqueued once every run succeeded (never when one was parked or canceled). */
  onSuccess?: BatchCallback;
}

/** A batch: progress (settled of total, how many parked/canceled) and its callbacks. */
export type DroverBatch = BatchView;

/**
 * Writes a batch of checked runs (see DroverClient.enqueueBatch): its record first, then its runs.
 * Runs of a batch take no idempotency key (the batch is one operation: retrying it makes another).
 */
export async function writeBatch(
  batches: BatchStore,
  items: readonly AdHocItem[],
  opts: BatchOptions,
  ctx: { now: number; random: () => number; defaultQueue: string; createdBy: string },
): Promise<string> {
  const issues: string[] = [];
  if (items.length === 0 || items.length > MAX_BATCH_RUNS)
    issues.push(`runs: 1-${MAX_BATCH_RUNS}, not ${items.length}`);
  if (items.some((i) => i.key !== undefined)) issues.push('idempotencyKey: runs of a batch take none');
  const parsed = parseBatchCallbacks(opts, ctx.defaultQueue);
  if (parsed.issues) issues.push(...parsed.issues);
  if (issues.length || parsed.issues) throw new InvalidOptionsError('enqueueBatch', issues);
  const id = batchIdOf(ctx.now, ctx.random);
  await batches
    .create({ id, runs: items.map((i) => i.run), callbacks: parsed.callbacks, createdBy: ctx.createdBy })
    .catch(RedisOutOfMemoryError.rethrow);
  return id;
}
