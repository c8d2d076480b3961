import { z } from 'zod';
import {
  BATCH_CALLBACKS,
  BATCH_STATUSES,
  batchCallbackSchema,
  boundedString,
  MAX_BATCH_RUNS,
  MAX_CONCURRENCY_KEY_LENGTH,
} from '@drover/core';
import type { BatchView } from '@drover/store';
import { isoOf, isoSchema as iso } from '../http/api-time';
import { named } from '../openapi/api-schemas';
import { listedRunFields } from '../runs/listed-run-fields';

/** One run of a batch: what `POST /jobs` takes (its `concurrencyKey` too), without `runAt` and an idempotency key. */
const batchRunSchema = z.strictObject({
  ...listedRunFields,
  concurrencyKey: boundedString(MAX_CONCURRENCY_KEY_LENGTH)
    .min(1)
    .optional()
    .describe("The run's concurrency key, for a queue whose `concurrencyKey` policy takes it `source: option`"),
});

/** A run enqueued once when the batch settles: queue (default `default`), job type (default `batch.complete` / `batch.success`), payload. */
const callback = batchCallbackSchema;

export const createBatchBody = z.strictObject({
  runs: z.array(batchRunSchema).min(1).max(MAX_BATCH_RUNS),
  onComplete: callback.optional(),
  onSuccess: callback.optional(),
});

export const BatchSchema = named(
  'Batch',
  z.object({
    id: z.string(),
    status: z.enum(BATCH_STATUSES),
    total: z.number().int(),
    settled: z.number().int().meta({ description: 'Runs that settled: succeeded + parked + canceled' }),
    succeeded: z.number().int(),
    parked: z.number().int(),
    canceled: z.number().int(),
    percent: z.number().int().meta({ description: 'Whole percent settled (0-100)' }),
    createdAt: iso,
    createdBy: z.string().nullable(),
    completedAt: iso.nullable(),
    firedAt: iso.nullable().meta({ description: 'When its callbacks were enqueued' }),
    callbacks: z.array(
      z.object({
        on: z.enum(BATCH_CALLBACKS),
        queue: z.string(),
        jobType: z.string(),
        runId: z
          .string()
          .nullable()
          .meta({ description: 'The callback run, once enqueued (null: not due or not yet)' }),
      }),
    ),
  }),
  'A batch of runs: its progress and its callbacks',
);
export type ApiBatch = z.infer<typeof BatchSchema>;

export function toApiBatch(b: BatchView): ApiBatch {
  return {
    id: b.id,
    status: b.status,
    total: b.total,
    settled: b.settled,
    succeeded: b.succeeded,
    parked: b.parked,
    canceled: b.canceled,
    percent: b.percent,
    createdAt: isoOf(b.createdAt),
    createdBy: b.createdBy,
    completedAt: b.completedAt === null ? null : isoOf(b.completedAt),
    firedAt: b.firedAt === null ? null : isoOf(b.firedAt),
    callbacks: b.callbacks,
  };
}
