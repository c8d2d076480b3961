import { Controller, Req } from '@nestjs/common';
import type { Request } from 'express';
import { z } from 'zod';
import { MAX_PENDING_SKIPS, parseIsoInstant, RoutineNotFoundError, type OperatorSkip } from '@drover/core';
import { Clock } from '@drover/redis';
import { ApiEvents, RoutineChanges, RoutineStore, SlotClaims, SlotSkips, skipSlot, unskipSlot } from '@drover/store';
import type { AuthenticatedRequest } from '../auth/principal';
import { ApiRoute, In } from '../http/api-route.decorator';
import { isoInstantInput, isoOf, isoSchema as iso } from '../http/api-time';
import { ProblemError } from '../http/problem';
import { route, type RouteInput } from '../http/route-spec';
import { named } from '../openapi/api-schemas';
import { nameParams } from './routine-schemas';

type Req_ = Request & AuthenticatedRequest;

const SkipSchema = named(
  'SlotSkip',
  z.object({
    slot: iso,
    /** Who asked for the skip. */
    by: z.string(),
    /** When they asked. */
    at: iso,
  }),
);

const skipSlotRoute = route({
  operationId: 'skipSlot',
  method: 'POST',
  path: ':name/skip',
  summary: 'Skip one future slot of the routine: it is recorded skipped (`skipped-by-operator`) and never runs',
  description:
    `The slot must be one of the schedule's (within startAt/endAt): another instant is a 422 naming the nearest slots. ` +
    `A past slot, one decided already, one an exclusion calendar holds, or more than ${MAX_PENDING_SKIPS} pending skips ` +
    `per routine is a 409. A run already armed for the slot is withdrawn by the leader before it can start. ` +
    `Skipping a slot skipped already answers the first skip (created false).`,
  tag: 'routines',
  role: 'operator',
  params: nameParams,
  body: z.strictObject({ slot: isoInstantInput }),
  responses: {
    201: {
      description: 'The pending skip',
      schema: named('SlotSkipAnswer', z.object({ skip: SkipSchema, created: z.boolean() })),
    },
    409: { description: 'The slot is past, decided, excluded, or the routine has too many pending skips' },
    422: { description: 'Not a slot of the schedule; the message names the nearest slots' },
  },
});

const listSkips = route({
  operationId: 'listSkips',
  method: 'GET',
  path: ':name/skips',
  summary: "The routine's pending operator skips, soonest first",
  tag: 'routines',
  role: 'viewer',
  params: nameParams,
  responses: {
    200: { description: 'Pending skips', schema: named('SlotSkipList', z.object({ items: z.array(SkipSchema) })) },
  },
});

const unskipSlotRoute = route({
  operationId: 'unskipSlot',
  method: 'DELETE',
  path: ':name/skips/:slot',
  summary: 'Undo a pending skip: the slot is decided as usual when it comes',
  tag: 'routines',
  role: 'operator',
  params: nameParams.extend({ slot: isoInstantInput }),
  responses: {
    204: { description: 'The skip is undone' },
    404: { description: 'No such routine, or no pending skip of that slot' },
  },
});

const skipOf = (s: OperatorSkip) => ({ slot: isoOf(s.slot), by: s.by, at: isoOf(s.at) });

@Controller('api/v1/routines')
export class RoutineSkipsController {
  constructor(
    private readonly routines: RoutineStore,
    private readonly claims: SlotClaims,
    private readonly skips: SlotSkips,
    private readonly changes: RoutineChanges,
    private readonly events: ApiEvents,
    private readonly clock: Clock,
  ) {}

  @ApiRoute(skipSlotRoute)
  async skip(@In() { params, body }: RouteInput<typeof skipSlotRoute>, @Req() req: Req_) {
    const deps = { routines: this.routines, claims: this.claims, skips: this.skips, changes: this.changes };
    const now = this.clock.now();
    const res = await skipSlot(deps, params.name, parseIsoInstant(body.slot)!, { now, by: req.principal!.name });
    if (res.created) await this.publish('skip', params.name, { slot: isoOf(res.skip.slot) });
    return { skip: skipOf(res.skip), created: res.created };
  }

  @ApiRoute(listSkips)
  async list(@In() { params }: RouteInput<typeof listSkips>) {
    if (!(await this.routines.get(params.name))) throw new RoutineNotFoundError(params.name);
    const now = this.clock.now();
    const pending = [...(await this.skips.pending(params.name)).values()];
    return {
      items: pending
        .filter((s) => s.slot > now)
        .sort((a, b) => a.slot - b.slot)
        .map(skipOf),
    };
  }

  @ApiRoute(unskipSlotRoute)
  async unskip(@In() { params }: RouteInput<typeof unskipSlotRoute>) {
    if (!(await this.routines.get(params.name))) throw new RoutineNotFoundError(params.name);
    const slot = parseIsoInstant(params.slot)!;
    if (!(await unskipSlot({ skips: this.skips }, params.name, slot))) {
      throw new ProblemError(404, `routine "${params.name}" has no pending skip of slot ${isoOf(slot)}`);
    }
    await this.publish('unskip', params.name, { slot: isoOf(slot) });
  }

  private publish(action: string, name: string, data: Record<string, unknown>): Promise<void> {
    return this.events.publish({ kind: 'routine', action, id: name, at: isoOf(this.clock.now()), data });
  }
}
