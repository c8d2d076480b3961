import { InvalidOptionsError, MAX_BATCH_RUNS, parseBatchCallbacks, RedisOutOfMemoryError } from '@drover/core';
import type { BatchStore } from '../batches/batch.store';
import type { AdHocItem } from './ad-hoc-enqueue';
import { batchIdOf } from './batch-runs';

/**
 * Writes a batch of checked ad-hoc runs (the client's enqueueBatch, `POST /batches`): its record
 * first, then its runs; answers the batch id. `callbacks` is what the caller gave
 * (`{ onComplete?, onSuccess? }`). Runs of a batch take no idempotency key: the batch is one
 * operation, and retrying it makes another. A run of a queue with a `concurrencyKey` policy takes
 * its key as any run does (the payload field, or `run.concurrencyKey` for `source: option`).
 *
 * @throws InvalidOptionsError (no runs or over MAX_BATCH_RUNS, a run with an idempotency key, a bad
 *   callback), InvalidPayloadError (a concurrency key its queue refuses), UnknownQueueError,
 *   RedisOutOfMemoryError
 */
export async function enqueueBatch(
  batches: BatchStore,
  items: readonly AdHocItem[],
  callbacks: unknown,
  ctx: { now: number; random: () => number; defaultQueue: string; createdBy: string },
): Promise<string> {
  const issues: string[] = [];
  if (items.length === 0 || items.length > MAX_BATCH_RUNS)
    issues.push(`runs: 1-${MAX_BATCH_RUNS}, not ${items.length}`);
  if (items.some((i) => i.key !== undefined)) issues.push('idempotencyKey: runs of a batch take none');
  const parsed = parseBatchCallbacks(callbacks, ctx.defaultQueue);
  if (parsed.issues) issues.push(...parsed.issues);
  if (issues.length || parsed.issues) throw new InvalidOptionsError('enqueueBatch', issues);
  const id = batchIdOf(ctx.now, ctx.random);
  await batches
    .create({ id, runs: items.map((i) => i.run), callbacks: parsed.callbacks, createdBy: ctx.createdBy })
    .catch(RedisOutOfMemoryError.rethrow);
  return id;
}
