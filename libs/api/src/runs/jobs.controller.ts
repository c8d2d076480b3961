import { Controller, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { z } from 'zod';
import {
  boundedString,
  MAX_CONCURRENCY_KEY_LENGTH,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_JOB_TYPE_LENGTH,
  NAME_PATTERN,
  prioritySchema,
} from '@drover/core';
import type { AuthenticatedRequest } from '../auth/principal';
import { ApiRoute, In } from '../http/api-route.decorator';
import { route, type RouteInput } from '../http/route-spec';
import { named } from '../openapi/api-schemas';
import { idempotencyKeyOf } from '../routines/request-headers';
import { JobEnqueue } from './job-enqueue.service';

/** Ten years: further out is a mistake, not a plan (use a routine with a `once` trigger). */
const MAX_DELAY_MS = 315_576_000_000;

const enqueueJob = route({
  operationId: 'enqueueJob',
  method: 'POST',
  path: 'jobs',
  summary: 'Enqueue an ad-hoc run of a job type',
  description:
    'Validated as the client validates (`http.request` and `sleep` payloads against the built-in handlers, ' +
    'every payload for plain JSON within 256 KiB). With `Idempotency-Key`, the same key gives the same run ' +
    'id and never a second run; reusing a key for another job type or queue is a 409.',
  tag: 'runs',
  role: 'operator',
  headers: {
    'Idempotency-Key': `Names the operation (1-${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters): the same key answers the same run id, one run`,
  },
  body: z
    .strictObject({
      jobType: boundedString(MAX_JOB_TYPE_LENGTH).min(1),
      payload: z
        .unknown()
        .refine((v) => v !== undefined, { message: 'is required: the job input as JSON ({} for none)' }),
      queue: z.string().regex(NAME_PATTERN, { message: 'is not a queue name ([a-z0-9][a-z0-9._-]{0,127})' }).optional(),
      runAt: z.iso
        .datetime({ offset: true, message: 'must be an ISO 8601 instant, e.g. 2026-12-24T18:00:00Z' })
        // NaN (not an instant at all) is left to the datetime check to name.
        .refine((at) => !(Date.parse(at) < 0), { message: 'must not be before 1970-01-01T00:00:00Z' })
        .optional(),
      delayMs: z.number().int().nonnegative().max(MAX_DELAY_MS).optional(),
      priority: prioritySchema.optional(),
      maxAttempts: z.number().int().min(1).max(1000).optional(),
      concurrencyKey: boundedString(MAX_CONCURRENCY_KEY_LENGTH)
        .min(1)
        .optional()
        .describe("The run's concurrency key, for a queue whose `concurrencyKey` policy takes it `source: option`"),
    })
    .superRefine((b, ctx) => {
      if (b.runAt !== undefined && b.delayMs !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['delayMs'], message: 'give runAt or delayMs, not both' });
      }
    }),
  responses: {
    201: {
      description: 'The run exists (for a repeated Idempotency-Key: the run the key made)',
      schema: named('EnqueuedJob', z.object({ runId: z.string() })),
      headers: { Location: 'The run: /api/v1/runs/{runId}' },
    },
  },
});

@Controller('api/v1')
export class JobsController {
  constructor(private readonly jobs: JobEnqueue) {}

  @ApiRoute(enqueueJob)
  async enqueue(
    @In() { body }: RouteInput<typeof enqueueJob>,
    @Req() req: Request & AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ runId: string }> {
    const runId = await this.jobs.enqueue(
      {
        jobType: body.jobType,
        payload: body.payload,
        ...(body.queue !== undefined && { queue: body.queue }),
        ...(body.runAt !== undefined && { runAt: Date.parse(body.runAt) }),
        ...(body.delayMs !== undefined && { delayMs: body.delayMs }),
        ...(body.priority !== undefined && { priority: body.priority }),
        ...(body.maxAttempts !== undefined && { maxAttempts: body.maxAttempts }),
        ...(body.concurrencyKey !== undefined && { concurrencyKey: body.concurrencyKey }),
      },
      req.principal!,
      idempotencyKeyOf(req),
    );
    res.setHeader('Location', `/api/v1/runs/${encodeURIComponent(runId)}`);
    return { runId };
  }
}
