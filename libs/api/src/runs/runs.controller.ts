import { Controller, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { z } from 'zod';
import {
  MAX_JOB_TYPE_LENGTH,
  NAME_PATTERN,
  parseRunSearch,
  RUN_STATUSES,
  RunNotFoundError,
  SEARCH_SCAN_LIMIT,
  TIME_BOUND_HINT,
} from '@drover/core';
import { RunStore } from '@drover/store';
import type { AuthenticatedRequest } from '../auth/principal';
import { ApiRoute, In } from '../http/api-route.decorator';
import { ProblemError } from '../http/problem';
import { route, type RouteInput } from '../http/route-spec';
import { named } from '../openapi/api-schemas';
import { RunEventStreams } from './run-event-stream.service';
import { RunListing } from './run-listing.service';
import { RunSchema, toApiListItem, toApiRun } from './run-schema';

const runParams = z.strictObject({ id: z.string().min(1).max(256) });

const listRuns = route({
  operationId: 'listRuns',
  method: 'GET',
  path: '',
  summary: 'Runs, newest first (filters; cursor paging)',
  description:
    'Without `routine`: the runs held in the queues (all, or `queue`), read from the newest 1000 per queue and state; ' +
    '`failed` and `skipped` runs, and runs canceled before they started, are listed only with `routine` (its newest 1000). ' +
    'Items carry no payload unless `include=payload`, and no value longer than 16 KiB (see `omitted`): ' +
    'GET /runs/{id} answers a run whole. A page may hold fewer than `page_size` runs and still give a `next_page_token`. ' +
    '`since`/`until` keep runs created in a window; `search` matches a payload field (`customer.id=42`), else a run id ' +
    `prefix or error text, reading at most ${SEARCH_SCAN_LIMIT} runs a page (\`scanned\`; \`scan_limit_reached\` says it stopped ` +
    'there: narrow the window or follow `next_page_token`). Runs of `system` routines are hidden unless `include=system` or `routine`.',
  tag: 'runs',
  role: 'viewer',
  query: z.strictObject({
    queue: z.string().regex(NAME_PATTERN, { message: 'is not a queue name' }).optional(),
    status: z.enum(RUN_STATUSES).optional(),
    routine: z.string().min(1).max(128).optional(),
    jobType: z.string().min(1).max(MAX_JOB_TYPE_LENGTH).optional(),
    since: z.string().min(1).max(64).optional().describe(`Created at or after: ${TIME_BOUND_HINT}`),
    until: z.string().min(1).max(64).optional().describe(`Created at or before: ${TIME_BOUND_HINT}`),
    search: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe(
        '`path.to.field=value`: the payload field equals value (an array: one element does); any other text: a run ' +
          'id starting with it or an error message (any attempt) holding it, case-insensitive',
      ),
    page_size: z.coerce.number().int().min(1).max(1000).default(50),
    page_token: z.string().min(1).max(1024).optional(),
    include: z
      .string()
      .regex(/^(payload|system)(,(payload|system))*$/, { message: 'is a comma-separated list of payload, system' })
      .optional()
      .describe(
        '`payload`: items carry their payloads (up to 16 KiB; a longer one is named in `omitted`); `system`: list the ' +
          'runs of `system` routines (scheduled housekeeping) too. Comma-separated: `payload,system`.',
      ),
  }),
  responses: {
    200: {
      description: 'A page of runs',
      schema: named(
        'RunPage',
        z.object({
          items: z.array(RunSchema),
          next_page_token: z.string().optional(),
          scanned: z.number().int().describe('Runs read to fill this page'),
          scan_limit_reached: z
            .boolean()
            .describe(
              `The page stopped after reading ${SEARCH_SCAN_LIMIT} runs: narrow the window or follow next_page_token`,
            ),
        }),
      ),
    },
  },
});

const getRun = route({
  operationId: 'getRun',
  method: 'GET',
  path: ':id',
  summary: 'One run: status, attempts, errors with stacks, progress, payload and times',
  tag: 'runs',
  role: 'viewer',
  params: runParams,
  responses: { 200: { description: 'The run', schema: RunSchema }, 404: { description: 'No such run' } },
});

const CancelAnswer = named(
  'RunCancel',
  z.object({ outcome: z.enum(['canceled', 'cancel-requested']), run: RunSchema }),
  'What a cancel did: `canceled` (it never starts) or `cancel-requested` (its handler is being aborted)',
);

const cancelRun = route({
  operationId: 'cancelRun',
  method: 'POST',
  path: ':id/cancel',
  summary: 'Cancel a run',
  description:
    'A scheduled, awaiting-approval or queued run is removed and never starts (200, `canceled`). A running run is aborted through its ' +
    "handler's signal and ends `canceled` (202, `cancel-requested`). A run that already ended (or is parked) is a 409.",
  tag: 'runs',
  role: 'operator',
  params: runParams,
  body: z.strictObject({ reason: z.string().min(1).max(500).optional() }).optional(),
  responses: {
    200: { description: 'Canceled: the run never starts', schema: CancelAnswer },
    202: { description: 'Cancel requested: the running handler is being aborted', schema: CancelAnswer },
    404: { description: 'No such run' },
    409: { description: 'The run already ended (or is parked)' },
  },
});

const approvalBody = z
  .strictObject({ reason: z.string().min(1).max(500).optional() })
  .optional()
  .describe("Optional: why (kept on the run's approval)");

const approveRun = route({
  operationId: 'approveRun',
  method: 'POST',
  path: ':id/approve',
  summary: 'Approve a run awaiting approval',
  description:
    'A run whose queue or routine requires approval waits `awaiting-approval` until an operator decides. Approving ' +
    'lets it go to its queue (or to the time it was due); its `approval` records who and when. Approval is per run: ' +
    'a run that is not awaiting approval (approved or rejected already, expired, or needing none) is a 409.',
  tag: 'runs',
  role: 'operator',
  params: runParams,
  body: approvalBody,
  responses: {
    200: { description: 'Approved: the run as it is now', schema: RunSchema },
    404: { description: 'No such run' },
    409: { description: 'The run is not awaiting approval' },
  },
});

const rejectRun = route({
  operationId: 'rejectRun',
  method: 'POST',
  path: ':id/reject',
  summary: 'Reject a run awaiting approval',
  description:
    'The run never starts: it ends `canceled` (reason `rejected`, or the reason given) and its `approval` records ' +
    'who and when. A run that is not awaiting approval is a 409.',
  tag: 'runs',
  role: 'operator',
  params: runParams,
  body: approvalBody,
  responses: {
    200: { description: 'Rejected: the run, canceled', schema: RunSchema },
    404: { description: 'No such run' },
    409: { description: 'The run is not awaiting approval' },
  },
});

const runEvents = route({
  operationId: 'runEvents',
  method: 'GET',
  path: ':id/events',
  summary: "A run's live events (Server-Sent Events); ends after a final status",
  description:
    'First `status` with the run as it is now, then `status` on every status change, `attempt` when an attempt ' +
    'begins and `progress` when its handler reports progress. After a settled status (succeeded, failed, canceled, ' +
    'skipped, parked) an `end` event follows and the server closes the stream. The stream also ends when the ' +
    'session or token that opened it ends (re-checked every few seconds, and at logout).',
  tag: 'runs',
  role: 'viewer',
  params: runParams,
  responses: {
    200: {
      description: 'text/event-stream of status, attempt, progress and end events',
      contentType: 'text/event-stream',
    },
    404: { description: 'No such run' },
    429: {
      description:
        'The token (DROVER_API_STREAMS_PER_TOKEN) or the api process (DROVER_API_STREAMS_MAX) has its most open event streams (Retry-After)',
    },
  },
});

@Controller('api/v1/runs')
export class RunsController {
  constructor(
    private readonly runs: RunStore,
    private readonly listing: RunListing,
    private readonly streams: RunEventStreams,
  ) {}

  @ApiRoute(listRuns)
  async list(@In() { query }: RouteInput<typeof listRuns>) {
    const include = new Set(query.include?.split(','));
    const search = query.search === undefined ? undefined : parseRunSearch(query.search);
    const page = await this.listing.page({
      ...(query.queue !== undefined && { queue: query.queue }),
      ...(query.status !== undefined && { status: query.status }),
      ...(query.routine !== undefined && { routine: query.routine }),
      ...(query.jobType !== undefined && { jobType: query.jobType }),
      ...(query.since !== undefined && { since: query.since }),
      ...(query.until !== undefined && { until: query.until }),
      ...(search && { search }),
      includeSystem: include.has('system'),
      pageSize: query.page_size,
      ...(query.page_token !== undefined && { pageToken: query.page_token }),
    });
    return {
      items: page.items.map((r) => toApiListItem(r, include.has('payload') ? 'payload' : undefined)),
      ...(page.next && { next_page_token: page.next }),
      scanned: page.scanned,
      scan_limit_reached: page.scanLimitReached,
    };
  }

  @ApiRoute(getRun)
  async get(@In() { params }: RouteInput<typeof getRun>) {
    const run = await this.runs.get(params.id);
    if (!run) throw new RunNotFoundError(params.id);
    return toApiRun(run);
  }

  @ApiRoute(cancelRun)
  async cancel(
    @In() { params, body }: RouteInput<typeof cancelRun>,
    @Req() req: Request & AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { outcome, run } = await this.runs.cancel(params.id, body?.reason ?? `canceled by ${req.principal!.name}`);
    if (outcome === 'not-found' || !run) throw new RunNotFoundError(params.id);
    if (outcome === 'already-final') {
      throw new ProblemError(
        409,
        `run ${params.id} is ${run.status}; only scheduled, queued or running runs can be canceled`,
      );
    }
    if (outcome === 'cancel-requested') res.status(202);
    return { outcome, run: toApiRun(run) };
  }

  @ApiRoute(approveRun)
  async approve(@In() { params, body }: RouteInput<typeof approveRun>, @Req() req: Request & AuthenticatedRequest) {
    const ask = { by: req.principal!.name, ...(body?.reason !== undefined && { reason: body.reason }) };
    return toApiRun(await this.runs.approvals.approve(params.id, ask));
  }

  @ApiRoute(rejectRun)
  async reject(@In() { params, body }: RouteInput<typeof rejectRun>, @Req() req: Request & AuthenticatedRequest) {
    const ask = { by: req.principal!.name, ...(body?.reason !== undefined && { reason: body.reason }) };
    return toApiRun(await this.runs.approvals.reject(params.id, ask));
  }

  @ApiRoute(runEvents)
  async events(@In() { params }: RouteInput<typeof runEvents>, @Req() req: Request, @Res() res: Response) {
    await this.streams.open(params.id, req, res);
  }
}
