import { z } from 'zod';
import { defineJob } from './job-contract';
import { payloadHeadersSchema } from './http-headers.schema';

/**
 * The built-in job types' contracts. They live here, with no runtime, because several faces share
 * them: the worker's handlers run them and the api checks their payloads at enqueue.
 */

/** `http.request`: calls a URL (the worker's HttpRequestHandler). */
export const httpRequestJob = defineJob('http.request', {
  payload: z.strictObject({
    url: z.url({ protocol: /^https?$/ }),
    method: z
      .preprocess(
        (m) => (typeof m === 'string' ? m.toUpperCase() : m),
        z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']),
      )
      .default('GET'),
    headers: payloadHeadersSchema.default({}),
    /** A string is sent as is; anything else as JSON. */
    body: z.unknown().optional(),
    timeoutMs: z.number().int().positive().max(3_600_000).optional(),
    /** Set by a selector routine: the candidate key this run serves, sent as X-Drover-Key. */
    key: z.string().max(512).optional(),
  }),
});

/** `sleep`: waits `ms` milliseconds (the worker's SleepHandler). */
export const sleepJob = defineJob('sleep', {
  payload: z.strictObject({ ms: z.number().int().min(0).max(86_400_000) }),
  result: z.object({ sleptMs: z.number() }),
});
