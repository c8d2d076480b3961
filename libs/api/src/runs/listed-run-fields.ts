import { z } from 'zod';
import { boundedString, MAX_JOB_TYPE_LENGTH, NAME_PATTERN, prioritySchema } from '@drover/core';

/** Ten years, as for `POST /jobs`. */
const MAX_DELAY_MS = 315_576_000_000;

const queueName = z.string().regex(NAME_PATTERN, { message: 'is not a queue name ([a-z0-9][a-z0-9._-]{0,127})' });

/**
 * The fields of one run in a list of runs written together (`POST /batches`, `POST /flows`): what
 * `POST /jobs` takes, without `runAt` and an idempotency key. Each route adds its own.
 */
export const listedRunFields = {
  jobType: boundedString(MAX_JOB_TYPE_LENGTH).min(1),
  payload: z.unknown().refine((v) => v !== undefined, { message: 'is required: the job input as JSON ({} for none)' }),
  queue: queueName.optional(),
  delayMs: z.number().int().nonnegative().max(MAX_DELAY_MS).optional(),
  priority: prioritySchema.optional(),
  maxAttempts: z.number().int().min(1).max(1000).optional(),
};
