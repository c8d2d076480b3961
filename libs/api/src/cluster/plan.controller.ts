import { Controller } from '@nestjs/common';
import { z } from 'zod';
import { RUN_SOURCES, SKIP_REASONS } from '@drover/core';
import { PlanService, type ClusterPlan } from '@drover/store';
import { ApiRoute, In } from '../http/api-route.decorator';
import { isoOf, isoSchema as iso, optIso } from '../http/api-time';
import { route, type RouteInput } from '../http/route-spec';
import { named } from '../openapi/api-schemas';

const PlanSchema = named(
  'Plan',
  z.object({
    now: iso,
    fires: z.array(
      z.object({
        routine: z.string(),
        queue: z.string(),
        slot: iso,
        source: z.enum(RUN_SOURCES),
        runId: z.string(),
        cancel: z.array(z.string()),
        start: iso.optional().describe('When its run is planned to start, if later than the slot (jitterMs)'),
      }),
    ),
    skips: z.array(z.object({ routine: z.string(), slot: iso, reason: z.enum(SKIP_REASONS) })),
    starts: z.array(
      z.object({ runId: z.string(), queue: z.string(), routine: z.string().nullable(), fromFire: z.boolean() }),
    ),
    waiting: z.array(
      z.object({
        subject: z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('routine'), name: z.string() }),
          z.object({ kind: z.literal('run'), id: z.string(), queue: z.string() }),
        ]),
        reason: z
          .string()
          .describe(
            'paused, queue-paused, ceiling-reached, no-workers, backing-off, not-yet-due, disabled, parked, overlap, queue-unknown',
          ),
        until: iso.optional(),
        detail: z.string().optional(),
      }),
    ),
    upcoming: z.array(
      z.object({
        routine: z.string(),
        at: iso,
        start: iso.optional().describe('When its run is planned to start, if later than the slot (jitterMs)'),
      }),
    ),
    truncated: z
      .array(z.string())
      .describe('Queues with more waiting runs than were read: their part of the plan covers the first ones only'),
  }),
  'The read-only plan at `now`: what fires, what is skipped, what would be leased next, and why ' +
    'everything else waits. Computed from the live state; changes nothing.',
);

const getPlan = route({
  operationId: 'getPlan',
  method: 'GET',
  path: 'plan',
  summary: 'The read-only plan: what runs next, what waits and why',
  tag: 'cluster',
  role: 'viewer',
  query: z.strictObject({
    runs_per_queue: z.coerce
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(100)
      .describe('Waiting runs read per queue and state (waiting, prioritized, delayed)'),
    parked_per_queue: z.coerce.number().int().min(1).max(1000).default(100).describe('Parked runs read per queue'),
  }),
  responses: { 200: { description: 'The plan', schema: PlanSchema } },
});

/** The plan with its instants as ISO 8601 (the store's plan keeps epoch ms). Pure. */
export function planAnswer(p: ClusterPlan): z.output<typeof PlanSchema> {
  return {
    now: isoOf(p.now),
    fires: p.fires.map(({ start, ...f }) => ({
      ...f,
      slot: isoOf(f.slot),
      ...(start !== undefined && { start: isoOf(start) }),
    })),
    skips: p.skips.map((s) => ({ ...s, slot: isoOf(s.slot) })),
    starts: p.starts,
    waiting: p.waiting.map(({ until, ...w }) => ({ ...w, ...optIso('until', until) })),
    upcoming: p.upcoming.map(({ start, ...u }) => ({
      ...u,
      at: isoOf(u.at),
      ...(start !== undefined && { start: isoOf(start) }),
    })),
    truncated: p.truncated,
  };
}

@Controller('api/v1')
export class PlanController {
  constructor(private readonly plans: PlanService) {}

  @ApiRoute(getPlan)
  async get(@In() { query }: RouteInput<typeof getPlan>) {
    return planAnswer(
      await this.plans.plan({ runsPerQueue: query.runs_per_queue, parkedPerQueue: query.parked_per_queue }),
    );
  }
}
