import { Controller } from '@nestjs/common';
import { z } from 'zod';
import { nameSchema, parseStatsWindow } from '@drover/core';
import { Clock } from '@drover/redis';
import { QueueRegistry, QueueStatsStore } from '@drover/store';
import { ApiRoute, In } from '../http/api-route.decorator';
import { route, type RouteInput } from '../http/route-spec';
import { OverallStatsSchema, QueueStatsSchema, statsWindowQuery, summaryView } from './queue-stats-schemas';
import { QueueViews } from './queue-views.service';

const DESCRIPTION =
  'From per-queue minute buckets (kept 26 h) and hour buckets (kept 8 days) that workers add to as runs settle, never a scan of runs. ' +
  '`window`: 1h to 7d, e.g. `24h`; up to 24h it counts whole minutes, past that whole hours. `points` downsample the window to at most 200 (`stepMs`: 1 min for 1h, 15 min for 24h, 1 h for 7d).';

const queueStats = route({
  operationId: 'queueStats',
  method: 'GET',
  path: 'queues/:name/stats',
  summary: "A queue's processed, failed and parked totals over a window, with throughput, failure and lateness points",
  description: DESCRIPTION,
  tag: 'queues',
  role: 'viewer',
  params: z.strictObject({ name: nameSchema }),
  query: statsWindowQuery,
  responses: { 200: { description: 'Statistics', schema: QueueStatsSchema }, 404: { description: 'No such queue' } },
});

const overallStats = route({
  operationId: 'overallStats',
  method: 'GET',
  path: 'stats',
  summary: 'Processed, failed and parked totals of every queue and all together over a window, with their points',
  description: DESCRIPTION,
  tag: 'queues',
  role: 'viewer',
  query: statsWindowQuery,
  responses: { 200: { description: 'Statistics', schema: OverallStatsSchema } },
});

const windowMsOf = (window: string): number => (parseStatsWindow(window) as { ms: number }).ms;

@Controller('api/v1')
export class QueueStatsController {
  constructor(
    private readonly queues: QueueViews,
    private readonly registry: QueueRegistry,
    private readonly stats: QueueStatsStore,
    private readonly clock: Clock,
  ) {}

  @ApiRoute(queueStats)
  async queueStats(@In() { params, query }: RouteInput<typeof queueStats>) {
    await this.queues.require(params.name);
    const summary = await this.stats.read(params.name, this.clock.now(), windowMsOf(query.window));
    return { queue: params.name, ...summaryView(query.window, summary) };
  }

  @ApiRoute(overallStats)
  async overallStats(@In() { query }: RouteInput<typeof overallStats>) {
    const names = (await this.registry.list()).map((r) => r.def.name).sort();
    const { overall, queues } = await this.stats.readAll(names, this.clock.now(), windowMsOf(query.window));
    return {
      ...summaryView(query.window, overall),
      queues: queues.map(({ queue, summary }) => ({ queue, totals: summary.totals, latenessMs: summary.latenessMs })),
    };
  }
}
