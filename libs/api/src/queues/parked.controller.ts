import { Controller, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { z } from 'zod';
import { nameSchema } from '@drover/core';
import { RunStore } from '@drover/store';
import type { AuthenticatedRequest } from '../auth/principal';
import { ApiRoute, In } from '../http/api-route.decorator';
import { ProblemError } from '../http/problem';
import { route, type RouteInput } from '../http/route-spec';
import { named } from '../openapi/api-schemas';
import { includeQuery, toApiListItem } from '../runs/run-schema';
import { BULK_RATES, ParkedOperations } from './parked-operations.service';
import { compileParkedFilter, parkedFilterSchema } from './parked-filter';
import { decodeParkedToken, encodeParkedToken, pageOfParked } from './parked-scan';
import { DryRunSchema, OperationStartedSchema, ParkedPageSchema } from './queue-schemas';
import { QueueViews } from './queue-views.service';

/** How many parked runs one list request reads at most to fill a page of a narrow filter. */
const MAX_SCAN_PER_PAGE = 5_000;

const queueParams = z.strictObject({ name: nameSchema });
const runParams = z.strictObject({ name: nameSchema, id: z.string().min(1).max(256) });

const bulkBody = (kind: 'replay' | 'purge') =>
  z
    .strictObject({
      filter: parkedFilterSchema.optional(),
      dryRun: z.boolean().optional(),
      ratePerSecond: z
        .number()
        .min(1)
        .max(BULK_RATES[kind].max)
        .optional()
        .describe(`Runs handled per second (default ${BULK_RATES[kind].default}, at most ${BULK_RATES[kind].max})`),
    })
    .optional();

const started = {
  description: 'The operation started; follow it at the Location (GET /operations/{id}) or on /events',
  schema: OperationStartedSchema,
  headers: { Location: '/api/v1/operations/{operationId}' },
};

const listParked = route({
  operationId: 'listParked',
  method: 'GET',
  path: ':name/parked',
  summary: 'Parked runs of a queue with their errors, newest parked first',
  description:
    'Items carry no payload unless `include=payload`, and no value longer than 16 KiB (see `omitted`; `errors` ' +
    'is then cut to the newest attempts): GET /runs/{id} answers a run whole.',
  tag: 'queues',
  role: 'viewer',
  params: queueParams,
  query: z.strictObject({
    page_size: z.coerce.number().int().min(1).max(1000).default(50),
    page_token: z.string().max(2000).optional(),
    include: includeQuery,
    ...parkedFilterSchema.shape,
  }),
  responses: {
    200: { description: 'A page of parked runs', schema: ParkedPageSchema },
    404: { description: 'No such queue' },
  },
});

const replayParked = route({
  operationId: 'replayParked',
  method: 'POST',
  path: ':name/parked/:id/replay',
  summary: 'Run one parked run again as a new run (fresh attempts, replayOf = the parked id)',
  tag: 'queues',
  role: 'operator',
  params: runParams,
  responses: {
    201: {
      description: 'The new run (replaying the same parked run again answers the same one)',
      schema: named('ReplayResult', z.object({ runId: z.string(), replayOf: z.string() })),
    },
    404: { description: 'No such queue or run' },
    409: { description: 'The run is not parked' },
  },
});

const deleteParked = route({
  operationId: 'deleteParked',
  method: 'DELETE',
  path: ':name/parked/:id',
  summary: 'Purge one parked run',
  tag: 'queues',
  role: 'admin',
  params: runParams,
  responses: {
    204: { description: 'Purged' },
    404: { description: 'No such queue or run' },
    409: { description: 'The run is not parked' },
  },
});

const replayAllParked = route({
  operationId: 'replayParkedRuns',
  method: 'POST',
  path: ':name/parked/replay',
  summary: 'Replay every parked run a filter selects, as a rate-limited background operation',
  tag: 'queues',
  role: 'operator',
  params: queueParams,
  body: bulkBody('replay'),
  responses: {
    200: { description: 'Dry run: how many would be replayed', schema: DryRunSchema },
    202: started,
    404: { description: 'No such queue' },
  },
});

const purgeParked = route({
  operationId: 'purgeParkedRuns',
  method: 'POST',
  path: ':name/parked/purge',
  summary: 'Purge every parked run a filter selects, as a background operation',
  tag: 'queues',
  role: 'admin',
  params: queueParams,
  body: bulkBody('purge'),
  responses: {
    200: { description: 'Dry run: how many would be purged', schema: DryRunSchema },
    202: started,
    404: { description: 'No such queue' },
  },
});

@Controller('api/v1/queues')
export class ParkedController {
  constructor(
    private readonly queues: QueueViews,
    private readonly runs: RunStore,
    private readonly operations: ParkedOperations,
  ) {}

  @ApiRoute(listParked)
  async list(@In() { params, query }: RouteInput<typeof listParked>) {
    await this.queues.require(params.name);
    const from = query.page_token === undefined ? undefined : decodeParkedToken(query.page_token);
    if (query.page_token !== undefined && !from) {
      const message = 'is not a page token from next_page_token';
      throw new ProblemError(400, `invalid request: query.page_token ${message}`, [
        { path: 'query.page_token', message },
      ]);
    }
    const { page_size: _size, page_token: _token, include, ...filterInput } = query;
    const filter = compileParkedFilter(filterInput);
    const page = await pageOfParked(this.runs, params.name, filter, {
      from,
      size: query.page_size,
      maxScan: Math.max(MAX_SCAN_PER_PAGE, query.page_size),
    });
    return {
      items: page.runs.map((r) => toApiListItem(r, include)),
      ...(page.next && { next_page_token: encodeParkedToken(page.next) }),
    };
  }

  @ApiRoute(replayParked)
  async replay(@In() { params }: RouteInput<typeof replayParked>) {
    await this.queues.require(params.name);
    await this.requireRun(params.name, params.id);
    const res = await this.runs.replayParked(params.name, params.id);
    return { runId: res.id, replayOf: res.replayOf };
  }

  @ApiRoute(deleteParked)
  async remove(@In() { params }: RouteInput<typeof deleteParked>) {
    await this.queues.require(params.name);
    const run = await this.requireRun(params.name, params.id);
    if ((await this.runs.purgeParked(params.name, params.id)) === 0) {
      throw new ProblemError(409, `run "${params.id}" is not parked in queue "${params.name}" (it is ${run.status})`);
    }
  }

  @ApiRoute(replayAllParked)
  replayAll(
    @In() { params, body }: RouteInput<typeof replayAllParked>,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.bulk('replay', params.name, body ?? {}, req, res);
  }

  @ApiRoute(purgeParked)
  purge(
    @In() { params, body }: RouteInput<typeof purgeParked>,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.bulk('purge', params.name, body ?? {}, req, res);
  }

  /** 404 unless the queue holds a run (or its record) with this id; answers the run. */
  private async requireRun(queue: string, id: string) {
    const run = await this.runs.get(id, queue);
    if (!run || run.queue !== queue) throw new ProblemError(404, `queue "${queue}" has no run "${id}"`);
    return run;
  }

  private async bulk(
    kind: 'replay' | 'purge',
    queue: string,
    body: NonNullable<RouteInput<typeof replayAllParked>['body']>,
    req: AuthenticatedRequest,
    res: Response,
  ) {
    await this.queues.require(queue);
    const filter = body.filter ?? {};
    if (body.dryRun) return { dryRun: true as const, matched: await this.operations.count(queue, filter) };
    const op = await this.operations.start({
      kind,
      queue,
      filter,
      ratePerSecond: body.ratePerSecond,
      by: req.principal?.name ?? 'anonymous',
    });
    res.status(202).setHeader('Location', `/api/v1/operations/${op.id}`);
    return { operationId: op.id, matched: op.matched };
  }
}
