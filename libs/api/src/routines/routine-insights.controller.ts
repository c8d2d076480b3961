import { Controller } from '@nestjs/common';
import { z } from 'zod';
import {
  parseIsoInstant,
  parseStatsWindow,
  percentilesOf,
  previewFires,
  withPlannedStarts,
  scheduleTriggers,
  RUN_STATUSES,
  STATS_STATUSES,
  successRatio,
} from '@drover/core';
import { Clock } from '@drover/redis';
import { RoutineStatsStore, RunStore, SlotSkips } from '@drover/store';
import { ApiRoute, In } from '../http/api-route.decorator';
import { isoInstantInput, isoOf } from '../http/api-time';
import { route, type RouteInput } from '../http/route-spec';
import { includeQuery, toApiListItem } from '../runs/run-schema';
import { nameParams, PreviewSchema, RoutineRunPageSchema, StatsSchema } from './routine-schemas';
import { lastRunOf } from './routine-view';
import { RoutinesService } from './routines.service';

const previewRoutine = route({
  operationId: 'previewRoutine',
  method: 'GET',
  path: ':name/preview',
  summary:
    'The next fire times within startAt/endAt, in UTC and local time, marking fires a DST transition moved and those an exclusion or an operator skip will skip',
  tag: 'routines',
  role: 'viewer',
  params: nameParams,
  query: z.strictObject({
    count: z.coerce.number().int().min(1).max(100).default(10),
    from: isoInstantInput.optional(),
  }),
  responses: { 200: { description: 'Fire times after `from` (default now)', schema: PreviewSchema } },
});

const listRoutineRuns = route({
  operationId: 'listRoutineRuns',
  method: 'GET',
  path: ':name/runs',
  summary: "The routine's runs, newest first (its newest 1000)",
  description:
    'Items carry no payload unless `include=payload`, and no value longer than 16 KiB (see `omitted`): ' +
    'GET /runs/{id} answers a run whole.',
  tag: 'routines',
  role: 'viewer',
  params: nameParams,
  query: z.strictObject({
    status: z.enum(RUN_STATUSES).optional(),
    page_size: z.coerce.number().int().min(1).max(1000).default(50),
    include: includeQuery,
  }),
  responses: {
    200: { description: 'Runs', schema: RoutineRunPageSchema },
  },
});

const routineStats = route({
  operationId: 'routineStats',
  method: 'GET',
  path: ':name/stats',
  summary: 'Counts by status, success ratio, duration and lateness percentiles over a window',
  description:
    'From per-routine hourly aggregates kept as runs end (never a scan of runs). `window`: 1h to 7d, e.g. `24h`; whole hours are counted. Percentiles are estimates within about 19 %.',
  tag: 'routines',
  role: 'viewer',
  params: nameParams,
  query: z.strictObject({
    window: z
      .string()
      .default('24h')
      .superRefine((w, ctx) => {
        const res = parseStatsWindow(w);
        if (!res.ok) ctx.addIssue({ code: 'custom', message: res.error });
      }),
  }),
  responses: { 200: { description: 'Statistics', schema: StatsSchema } },
});

@Controller('api/v1/routines')
export class RoutineInsightsController {
  constructor(
    private readonly routines: RoutinesService,
    private readonly runs: RunStore,
    private readonly stats: RoutineStatsStore,
    private readonly clock: Clock,
    private readonly skips: SlotSkips,
  ) {}

  @ApiRoute(previewRoutine)
  async preview(@In() { params, query }: RouteInput<typeof previewRoutine>) {
    const [rec, skips] = await Promise.all([this.routines.require(params.name), this.skips.pending(params.name)]);
    const from = query.from === undefined ? this.clock.now() : parseIsoInstant(query.from)!;
    const [first] = scheduleTriggers(rec.def);
    const trigger = first?.trigger;
    return {
      routine: rec.def.name,
      tz: trigger?.kind === 'cron' ? (trigger.tz ?? 'UTC') : 'UTC',
      paused: rec.def.status !== 'active',
      items: withPlannedStarts(previewFires(rec.def, from, query.count, { ...rec.def, skips }), rec.def).map((f) => ({
        at: isoOf(f.at),
        ...(f.trigger !== undefined && { trigger: f.trigger }),
        local: f.local,
        ...(f.dst && { dst: f.dst }),
        ...(f.skipped && { skipped: f.skipped }),
        ...(f.start !== undefined && { start: isoOf(f.start) }),
      })),
    };
  }

  @ApiRoute(listRoutineRuns)
  async listRuns(@In() { params, query }: RouteInput<typeof listRoutineRuns>) {
    await this.routines.require(params.name);
    const runs = await this.runs.listByRoutine(params.name, { limit: query.page_size, status: query.status });
    return { items: runs.map((r) => toApiListItem(r, query.include)) };
  }

  @ApiRoute(routineStats)
  async routineStats(@In() { params, query }: RouteInput<typeof routineStats>) {
    await this.routines.require(params.name);
    const windowMs = (parseStatsWindow(query.window) as { ms: number }).ms;
    const now = this.clock.now();
    const [merged, [last]] = await Promise.all([
      this.stats.read(params.name, now, windowMs),
      this.runs.listByRoutine(params.name, { limit: 1 }),
    ]);
    return {
      routine: params.name,
      window: query.window,
      from: isoOf(merged.from),
      to: isoOf(now),
      counts: merged.counts,
      total: STATS_STATUSES.reduce((n, s) => n + merged.counts[s], 0),
      successRatio: successRatio(merged.counts),
      durationMs: percentilesOf(merged.duration),
      latenessMs: percentilesOf(merged.lateness),
      lastRun: lastRunOf(last),
    };
  }
}
