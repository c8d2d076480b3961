import { defineJob } from '@drover/client';
import { z } from 'zod';

/**
 * The contract both sides of the `example.greet` job share: examples/nest-producer enqueues it,
 * examples/nest-worker handles it (`@JobHandler(greetJob)`). In a team's repository this file is
 * its jobs package; each example compiles it with its own sources (their tsconfig.json includes
 * `../shared`), so a change here that one side does not follow fails that side's build.
 */
export const greetJob = defineJob('example.greet', {
  payload: z.strictObject({
    name: z.string().min(1).max(100),
    /** How long the greeter takes over it (so a test can catch a greeting in flight). */
    takeMs: z.number().int().min(0).max(10_000).default(0),
  }),
  result: z.object({ text: z.string(), by: z.string() }),
  queue: 'greetings',
});
