import { z } from 'zod';
import {
  InvalidOptionsError,
  boundedString,
  MAX_CONCURRENCY_KEY_LENGTH,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  NAME_PATTERN,
  prioritySchema,
  priorityValue,
  RUN_STATUSES,
  type Priority,
  type RunStatus,
} from '@drover/core';
import { startOf, type RunStart } from '@drover/store';

/** Options of `DroverClient.enqueue`. Times are epoch ms. */
export interface EnqueueOptions {
  /** The queue; default the contract's `queue`, else the module's `defaultQueue`. */
  queue?: string;
  /** Start no earlier than this (a Date or epoch ms); a past time means now. Not with `delayMs`. */
  runAt?: Date | number;
  /** Start no earlier than this many ms from now. Not with `runAt`. */
  delayMs?: number;
  /** `low`, `medium` (default), `high` or an integer in [-1000, 1000]; higher runs first. */
  priority?: Priority;
  /** Attempts before the run is parked; default the contract's, else the queue's `maxAttempts`. */
  maxAttempts?: number;
  /**
   * The same key gives the same run id and never a second run while Drover keeps that run (see
   * docs/client.md, "Idempotency"). Keys are global within a prefix: name the operation, e.g.
   * `invoice:42:send`.
   */
  idempotencyKey?: string;
  /**
   * The run's concurrency key, for a queue whose `concurrencyKey` policy takes it `source: option`
   * (e.g. the tenant): runs sharing a key run at most the queue's per-key limit at once.
   */
  concurrencyKey?: string;
}

/** Options of `DroverClient.waitForRun`. */
export interface WaitOptions {
  /** How long to wait for the run to end, in ms (1 – 2147483647); default 60000. */
  timeoutMs?: number;
}

/** Options of `DroverClient.listRuns`. */
export interface ListRunsOptions {
  /** Only this routine's runs (its newest 1000, including skipped and canceled ones). */
  routine?: string;
  /** Only runs of this queue. */
  queue?: string;
  status?: RunStatus;
  /** At most this many (1–1000); default 50. */
  limit?: number;
}

const MAX_TIMER_MS = 2 ** 31 - 1;
const queueName = z.string().regex(NAME_PATTERN, {
  message: 'is not a queue name ([a-z0-9][a-z0-9._-]{0,127}), e.g. "default"',
});

const enqueueSchema = z
  .strictObject({
    queue: queueName.optional(),
    runAt: z
      .union([z.date(), z.number().int().nonnegative()], { error: 'must be a valid Date or epoch milliseconds' })
      .optional(),
    delayMs: z.number({ error: 'must be a number of milliseconds' }).int().nonnegative().optional(),
    priority: prioritySchema.optional(),
    maxAttempts: z.number().int().positive().max(1000).optional(),
    idempotencyKey: boundedString(MAX_IDEMPOTENCY_KEY_LENGTH).min(1).optional(),
    concurrencyKey: boundedString(MAX_CONCURRENCY_KEY_LENGTH).min(1).optional(),
  })
  .refine((o) => o.runAt === undefined || o.delayMs === undefined, {
    message: 'give runAt or delayMs, not both',
  });

const waitSchema = z.strictObject({ timeoutMs: z.number().int().min(1).max(MAX_TIMER_MS).optional() });

const listSchema = z.strictObject({
  routine: z.string().min(1).optional(),
  queue: queueName.optional(),
  status: z.enum(RUN_STATUSES).optional(),
  limit: z.number().int().min(1).max(1000).optional(),
});

function parse<T>(schema: z.ZodType<T>, where: string, raw: unknown): T {
  const res = schema.safeParse(raw ?? {});
  if (res.success) return res.data;
  throw new InvalidOptionsError(
    where,
    res.error.issues.map((i) => `${i.path.length ? i.path.map(String).join('.') : '(options)'}: ${i.message}`),
  );
}

/** What enqueue options mean for the run: resolved against `now` (epoch ms). */
export interface ResolvedEnqueue extends RunStart {
  queue?: string;
  priority: number;
  maxAttempts?: number;
  idempotencyKey?: string;
  concurrencyKey?: string;
}

/** Checks enqueue options; throws InvalidOptionsError naming each bad field. */
export function resolveEnqueueOptions(raw: EnqueueOptions | undefined, now: number): ResolvedEnqueue {
  // No options is the common call: nothing to check.
  if (raw === undefined) return { delayMs: 0, scheduledFor: null, priority: priorityValue(undefined) };
  const o = parse(enqueueSchema, 'enqueue', raw);
  const runAt = o.runAt instanceof Date ? o.runAt.getTime() : o.runAt;
  return {
    ...(o.queue && { queue: o.queue }),
    ...startOf({ runAt, delayMs: o.delayMs }, now),
    priority: priorityValue(o.priority),
    ...(o.maxAttempts !== undefined && { maxAttempts: o.maxAttempts }),
    ...(o.idempotencyKey !== undefined && { idempotencyKey: o.idempotencyKey }),
    ...(o.concurrencyKey !== undefined && { concurrencyKey: o.concurrencyKey }),
  };
}

export function resolveWaitOptions(raw: WaitOptions | undefined): { timeoutMs: number } {
  return { timeoutMs: parse(waitSchema, 'waitForRun', raw).timeoutMs ?? 60_000 };
}

export function resolveListOptions(raw: ListRunsOptions | undefined): ListRunsOptions {
  return parse(listSchema, 'listRuns', raw);
}
