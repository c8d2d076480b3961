import { Controller, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { RunNotFoundError } from '@drover/core';
import { RunStore } from '@drover/store';
import { ApiRoute, In } from '../http/api-route.decorator';
import { route, type RouteInput } from '../http/route-spec';
import { LOG_POLL_MS, RunLogStreams } from './run-log-stream.service';
import { RunLogPageSchema, runLogQuery, toApiLogPage } from './run-log-schema';

const runParams = z.strictObject({ id: z.string().min(1).max(256) });

const KEPT =
  "A run keeps its newest lines (the queue's `retention.logLines`, 1000 unless set; each line at most 2 KB) " +
  'and loses them with the run (retention, purge). Lines are numbered from 1 across attempts; `from` is a number.';

const listRunLogs = route({
  operationId: 'listRunLogs',
  method: 'GET',
  path: ':id/logs',
  summary: "A run's log lines (`ctx.log`), oldest first, from a line number",
  description: `${KEPT} Ask again with \`from=next\` for the lines after a page; \`dropped\` counts the first lines no longer kept.`,
  tag: 'runs',
  role: 'viewer',
  params: runParams,
  query: runLogQuery,
  responses: {
    200: { description: 'A page of log lines', schema: RunLogPageSchema },
    404: { description: 'No such run' },
  },
});

const followRunLogs = route({
  operationId: 'followRunLogs',
  method: 'GET',
  path: ':id/logs/stream',
  summary: "A run's log lines, live (Server-Sent Events); ends once the run has settled",
  description:
    `${KEPT} A \`line\` event per line from \`from\` on (its \`id:\` is the line's number; a reconnect's ` +
    '`Last-Event-ID` resumes after it), new lines as the handler writes them (looked for every ' +
    `${LOG_POLL_MS / 1000} s while the run is active), then \`end\` (\`{id, next}\`) after the run settled and its last ` +
    'lines were sent, and the server closes the stream. The stream also ends when the session or token that opened it ends.',
  tag: 'runs',
  role: 'viewer',
  params: runParams,
  query: runLogQuery.pick({ from: true }),
  responses: {
    200: { description: 'text/event-stream of line and end events', contentType: 'text/event-stream' },
    404: { description: 'No such run' },
    429: {
      description:
        'The token (DROVER_API_STREAMS_PER_TOKEN) or the api process (DROVER_API_STREAMS_MAX) has its most open event streams (Retry-After)',
    },
  },
});

/** The line after the last one a reconnecting EventSource saw (its `Last-Event-ID`), if any. */
function resumeFrom(req: Request): number | undefined {
  const last = Number(req.header('last-event-id'));
  return Number.isSafeInteger(last) && last > 0 ? last + 1 : undefined;
}

@Controller('api/v1/runs')
export class RunLogsController {
  constructor(
    private readonly runs: RunStore,
    private readonly streams: RunLogStreams,
  ) {}

  @ApiRoute(listRunLogs)
  async list(@In() { params, query }: RouteInput<typeof listRunLogs>) {
    const page = await this.runs.logs(params.id, { from: query.from, limit: query.limit });
    if (!page) throw new RunNotFoundError(params.id);
    return toApiLogPage(page);
  }

  @ApiRoute(followRunLogs)
  async follow(@In() { params, query }: RouteInput<typeof followRunLogs>, @Req() req: Request, @Res() res: Response) {
    await this.streams.open(params.id, Math.max(query.from, resumeFrom(req) ?? 1), req, res);
  }
}
