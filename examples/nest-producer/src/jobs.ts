import { defineJob } from '@drover/client';
import { z } from 'zod';

/**
 * The contract of the `sleep` job that Drover's shipped worker handles (apps/worker). A team that
 * writes its own handlers keeps contracts like this in a package shared with its worker, which
 * passes the same object to `@JobHandler(...)`.
 */
export const sleepJob = defineJob('sleep', {
  payload: z.strictObject({ ms: z.number().int().min(0).max(86_400_000) }),
  result: z.object({ sleptMs: z.number() }),
  queue: 'default',
  maxAttempts: 2,
});
