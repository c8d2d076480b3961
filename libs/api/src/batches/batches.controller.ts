import { Controller, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { parseIsoInstant } from '@drover/core';
import { BatchStore } from '@drover/store';
import type { AuthenticatedRequest } from '../auth/principal';
import { isoInstantInput } from '../http/api-time';
import { ApiRoute, In } from '../http/api-route.decorator';
import { ProblemError } from '../http/problem';
import { route, type RouteInput } from '../http/route-spec';
import { named } from '../openapi/api-schemas';
import { JobEnqueue } from '../runs/job-enqueue.service';
import { BatchSchema, createBatchBody, toApiBatch } from './batch-schemas';
import { BATCH_POLL_MS, BatchStreams } from './batch-stream.service';

const RUN_IDS_MAX = 1000;
const params = z.strictObject({ id: z.string().min(1).max(256) });
const SETTLED =
  'A run settles once: succeeded, parked (its attempts used up or a permanent error) or canceled; a retried attempt does not settle it.';

const createBatch = route({
  operationId: 'createBatch',
  method: 'POST',
  path: '',
  summary: 'Enqueue a batch of runs with callbacks once they all settle',
  description:
    `${SETTLED} When the last run settles, \`onComplete\` is enqueued, and \`onSuccess\` too if every run succeeded, ` +
    'each exactly once, with the payload `{batch, on, total, succeeded, parked, canceled, payload}`. Every run is checked ' +
    'before anything is written (a bad one is a 400 naming it, a bad concurrency key too); the batch record is written ' +
    'first, then its runs. A run of a queue with a `concurrencyKey` policy takes its key as in `POST /jobs` and waits ' +
    'for a free place of its key; it still counts in its batch when it settles.',
  tag: 'runs',
  role: 'operator',
  body: createBatchBody,
  responses: {
    201: {
      description: 'The batch and its runs exist',
      schema: named('CreatedBatch', z.object({ batchId: z.string(), total: z.number().int() })),
      headers: { Location: 'The batch: /api/v1/batches/{batchId}' },
    },
  },
});

const listBatches = route({
  operationId: 'listBatches',
  method: 'GET',
  path: '',
  summary: 'Batches, newest first (the newest 10,000 of the last 30 days)',
  description: 'Ask again with `before=nextBefore` for older ones.',
  tag: 'runs',
  role: 'viewer',
  query: z.strictObject({
    limit: z.coerce.number().int().min(1).max(100).default(50),
    before: isoInstantInput.optional().meta({ description: 'Only batches created before this instant' }),
  }),
  responses: {
    200: {
      description: 'A page of batches',
      schema: named(
        'BatchPage',
        z.object({
          batches: z.array(BatchSchema),
          nextBefore: z.string().meta({ format: 'date-time' }).optional(),
        }),
      ),
    },
  },
});

const getBatch = route({
  operationId: 'getBatch',
  method: 'GET',
  path: ':id',
  summary: "A batch's progress and callbacks, with a page of its run ids",
  description: `${SETTLED} \`runs\` holds run ids in the order they were given, from \`offset\`; \`nextOffset\` asks for the next page.`,
  tag: 'runs',
  role: 'viewer',
  params,
  query: z.strictObject({
    offset: z.coerce.number().int().min(0).default(0),
    limit: z.coerce.number().int().min(1).max(RUN_IDS_MAX).default(100),
  }),
  responses: {
    200: {
      description: 'The batch',
      schema: named(
        'BatchDetail',
        BatchSchema.extend({ runs: z.array(z.string()), nextOffset: z.number().int().optional() }),
      ),
    },
    404: { description: "No such batch (never made, or expired with its runs' retention)" },
  },
});

const streamBatch = route({
  operationId: 'streamBatch',
  method: 'GET',
  path: ':id/stream',
  summary: "A batch's progress, live (Server-Sent Events); ends once its callbacks were enqueued",
  description:
    `A \`progress\` event (a Batch) at once and whenever its counts change (read every ${BATCH_POLL_MS / 1000} s), ` +
    'then `end` (`{id, status}`) once the batch is complete and its callbacks were enqueued, and the server closes the stream.',
  tag: 'runs',
  role: 'viewer',
  params,
  responses: {
    200: { description: 'text/event-stream of progress and end events', contentType: 'text/event-stream' },
    404: { description: 'No such batch' },
    429: {
      description:
        'The token (DROVER_API_STREAMS_PER_TOKEN) or the api process (DROVER_API_STREAMS_MAX) has its most open event streams (Retry-After)',
    },
  },
});

@Controller('api/v1/batches')
export class BatchesController {
  constructor(
    private readonly batches: BatchStore,
    private readonly jobs: JobEnqueue,
    private readonly streams: BatchStreams,
  ) {}

  @ApiRoute(createBatch)
  async create(
    @In() { body }: RouteInput<typeof createBatch>,
    @Req() req: Request & AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ batchId: string; total: number }> {
    const batchId = await this.jobs.enqueueBatch(
      body.runs.map((r) => ({
        jobType: r.jobType,
        payload: r.payload,
        ...(r.queue !== undefined && { queue: r.queue }),
        ...(r.delayMs !== undefined && { delayMs: r.delayMs }),
        ...(r.priority !== undefined && { priority: r.priority }),
        ...(r.maxAttempts !== undefined && { maxAttempts: r.maxAttempts }),
        ...(r.concurrencyKey !== undefined && { concurrencyKey: r.concurrencyKey }),
      })),
      { ...(body.onComplete && { onComplete: body.onComplete }), ...(body.onSuccess && { onSuccess: body.onSuccess }) },
      req.principal!,
    );
    res.setHeader('Location', `/api/v1/batches/${encodeURIComponent(batchId)}`);
    return { batchId, total: body.runs.length };
  }

  @ApiRoute(listBatches)
  async list(@In() { query }: RouteInput<typeof listBatches>) {
    const before = query.before === undefined ? undefined : parseIsoInstant(query.before);
    const page = await this.batches.list(query.limit, before);
    const last = page.at(-1);
    return {
      batches: page.map(toApiBatch),
      ...(page.length === query.limit && last && { nextBefore: new Date(last.createdAt).toISOString() }),
    };
  }

  @ApiRoute(getBatch)
  async get(@In() { params, query }: RouteInput<typeof getBatch>) {
    const batch = await this.batches.get(params.id);
    if (!batch) throw new ProblemError(404, `no batch "${params.id}" (a batch expires with its runs' retention)`);
    const runs = await this.batches.runIds(params.id, query.offset, query.limit);
    const next = query.offset + runs.length;
    return { ...toApiBatch(batch), runs, ...(next < batch.total && runs.length > 0 && { nextOffset: next }) };
  }

  @ApiRoute(streamBatch)
  async stream(@In() { params }: RouteInput<typeof streamBatch>, @Req() req: Request, @Res() res: Response) {
    await this.streams.open(params.id, req, res);
  }
}
