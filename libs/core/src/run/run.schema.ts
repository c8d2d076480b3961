import { z } from 'zod';
import { RUN_SOURCES, RUN_STATUSES } from './run-status';

/** Message and stack of a run's last failure. */
export const runErrorSchema = z.object({
  message: z.string(),
  stack: z.string().optional(),
  /** The handler said retrying cannot help (e.g. bad payload). */
  permanent: z.boolean().optional(),
});
export type RunError = z.infer<typeof runErrorSchema>;

const epochMs = z.number().int();

/**
 * One execution instance (docs/core.md). Times are epoch ms. `attempt` is the 1-based number of the current or last
 * attempt (0 before the first start); `scheduledFor` is the slot and never changes across attempts.
 */
export const runSchema = z.object({
  id: z.string().min(1).max(256),
  routine: z.string().nullable(),
  jobType: z.string().min(1),
  queue: z.string().min(1),
  source: z.enum(RUN_SOURCES),
  scheduledFor: epochMs,
  status: z.enum(RUN_STATUSES),
  attempt: z.number().int().nonnegative(),
  maxAttempts: z.number().int().positive(),
  priority: z.number().optional(),
  payload: z.unknown().optional(),
  error: runErrorSchema.optional(),
  result: z.unknown().optional(),
  progress: z.unknown().optional(),
  worker: z.string().optional(),
  createdBy: z.string().optional(),
  /** Why the run was skipped, parked or canceled. */
  reason: z.string().optional(),
  createdAt: epochMs,
  updatedAt: epochMs,
  queuedAt: epochMs.optional(),
  startedAt: epochMs.optional(),
  finishedAt: epochMs.optional(),
  /** When a retry becomes eligible (queued with a delay). */
  nextAttemptAt: epochMs.optional(),
});
export type Run = z.infer<typeof runSchema>;
