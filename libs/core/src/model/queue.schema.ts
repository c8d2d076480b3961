import { z } from 'zod';
import { approvalPolicySchema } from './approval.schema';
import { concurrencyKeyPolicySchema } from './concurrency-key.schema';
import { nameSchema } from './name.schema';
import { DEFAULT_RETENTION } from './queue-defaults';

const positiveInt = z.number().int().positive();

/** Retry backoff: `fixed` waits `delayMs`; `exponential` waits `delayMs * 2^(attempt-1)`; both capped by `maxDelayMs`. */
export const backoffSchema = z
  .strictObject({
    type: z.enum(['exponential', 'fixed']).default('exponential'),
    delayMs: z.number().int().nonnegative().default(1000),
    maxDelayMs: z.number().int().nonnegative().default(60_000),
    /** Fraction in [0, 1] of the delay that may be randomly taken off (never added). 0 = deterministic. */
    jitter: z.number().min(0).max(1).default(0),
  })
  .refine((b) => b.maxDelayMs >= b.delayMs, {
    path: ['maxDelayMs'],
    message: 'must be >= delayMs',
  });

/**
 * Retention of finished runs: keep at most `count` and none older than `ageMs`. A run's log
 * (`ctx.log`) keeps its newest `logLines` lines and goes with the run.
 */
export const retentionSchema = z.strictObject({
  count: z.number().int().nonnegative().default(DEFAULT_RETENTION.count),
  ageMs: z.number().int().nonnegative().default(DEFAULT_RETENTION.ageMs),
  logLines: z.number().int().positive().max(100_000).default(DEFAULT_RETENTION.logLines),
});

/** A queue and the defaults its jobs inherit (docs/core.md). */
export const queueSchema = z.strictObject({
  name: nameSchema,
  /** Jobs a single worker process runs at once. */
  concurrency: positiveInt.default(10),
  /** Hard cluster-wide ceiling on running jobs; unset = no ceiling beyond the workers'. */
  globalConcurrency: positiveInt.optional(),
  rateLimit: z.strictObject({ max: positiveInt, durationMs: positiveInt }).optional(),
  maxAttempts: positiveInt.default(3),
  backoff: backoffSchema.prefault({}),
  timeoutMs: positiveInt.default(300_000),
  /** Lock duration of a running job; a lease that expires counts as one failed attempt. */
  leaseMs: positiveInt.default(30_000),
  retention: retentionSchema.prefault({}),
  /** Every run of the queue waits for an operator's approval (see approvalPolicySchema); unset = none. */
  approval: approvalPolicySchema.optional(),
  /** Runs sharing a key (a payload field or the enqueue option) run at most `limit` at once; unset = no keys. */
  concurrencyKey: concurrencyKeyPolicySchema.optional(),
});

export type Backoff = z.infer<typeof backoffSchema>;
export type Retention = z.infer<typeof retentionSchema>;
/** A validated queue with every default filled in. */
export type Queue = z.infer<typeof queueSchema>;
/** A queue as written in a config file (defaults may be omitted). */
export type QueueInput = z.input<typeof queueSchema>;
