import { Controller, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { NAME_PATTERN } from '@drover/core';
import { ApiEvents } from '@drover/store';
import { ApiRoute, In } from '../http/api-route.decorator';
import { route, type RouteInput } from '../http/route-spec';
import { ClusterEventFeed } from './cluster-event-feed';
import { eventFilter, kindsQuerySchema, matchesFilter } from './event-filter';
import { SseStreams } from './sse-streams';

/** The reconnection delay suggested to consoles (ms). */
const RETRY_MS = 3_000;

const clusterEvents = route({
  operationId: 'clusterEvents',
  method: 'GET',
  path: 'events',
  summary: 'Cluster-wide live changes of runs, routines, queues and operations (Server-Sent Events)',
  description:
    'Each event is named for its kind (`run`, `routine`, `queue`, `operation`) and carries ' +
    '`{kind, action, id, at, data?}`: run `status` (data: queue, status), `progress` and `removed`; routine ' +
    '`changed`/`removed`; queue `paused`/`resumed`/`changed`; operation progress. `id:` lines number the events ' +
    'of one connection in order (there is no replay: after a reconnect, re-read what you show). ' +
    '`?kinds=` keeps some kinds; `?queue=` drops events about other queues. The stream ends when the session or ' +
    'token that opened it ends (re-checked every few seconds, and at logout).',
  tag: 'cluster',
  role: 'viewer',
  query: z.strictObject({
    kinds: kindsQuerySchema.optional(),
    queue: z.string().regex(NAME_PATTERN, { message: 'is not a queue name' }).optional(),
  }),
  responses: {
    200: { description: 'text/event-stream of change events', contentType: 'text/event-stream' },
    429: {
      description:
        'The token (DROVER_API_STREAMS_PER_TOKEN) or the api process (DROVER_API_STREAMS_MAX) has its most open event streams (Retry-After)',
    },
  },
});

@Controller('api/v1')
export class EventsController {
  constructor(
    private readonly feed: ClusterEventFeed,
    private readonly events: ApiEvents,
    private readonly streams: SseStreams,
  ) {}

  @ApiRoute(clusterEvents)
  async stream(@In() { query }: RouteInput<typeof clusterEvents>, @Req() req: Request, @Res() res: Response) {
    const filter = eventFilter(query.kinds, query.queue);
    await this.feed.start();
    const events = await this.events.stream();
    const stream = this.streams.start(req, res, { retryMs: RETRY_MS });
    const sub = events.subscribe({
      next: (e) => matchesFilter(e, filter) && stream.send({ event: e.kind, data: e }),
      complete: () => stream.end(),
    });
    stream.onClose(() => sub.unsubscribe());
  }
}
