import { Controller } from '@nestjs/common';
import { z } from 'zod';
import {
  parseIsoInstant,
  ROUTINE_STATUSES,
  RUN_SOURCES,
  SKIP_REASONS,
  WHAT_IF_CHANGES,
  WHAT_IF_MAX_ROUTINES,
  WHAT_IF_NEXT,
  WHAT_IF_SLOTS,
} from '@drover/core';
import { ApiRoute, In } from '../http/api-route.decorator';
import { isoInstantInput, isoOf, isoSchema as iso, optIso } from '../http/api-time';
import { ProblemError } from '../http/problem';
import { route, type RouteInput } from '../http/route-spec';
import { named } from '../openapi/api-schemas';
import { PolicyApply } from './policy-apply.service';
import { PlanWhatIf, type WhatIfAnswer } from './what-if.service';

const wait = z.object({
  reason: z
    .string()
    .describe(
      'paused (paused or archived), disabled, backing-off, overlap, queue-unknown, queue-paused, ceiling-reached, no-workers, not-yet-due',
    ),
  until: iso.optional(),
  detail: z.string().optional(),
});
const names = z.array(z.string());

const WhatIfSchema = named(
  'PlanWhatIf',
  z.object({
    at: iso.describe('The instant planned at: the apply and the scheduler pass that follows it'),
    now: iso,
    routines: z.array(
      z.object({
        routine: z.string(),
        change: z.enum(WHAT_IF_CHANGES),
        status: z.enum(ROUTINE_STATUSES).optional().describe('As the apply would leave it'),
        queue: z.string().optional(),
        condition: z
          .string()
          .optional()
          .describe(
            "The routine's condition in one line (`http GET <url>`, `queue-depth <queue> < <n>` or a @Condition name): " +
              'evaluated when each fire fires, never by a what-if; the fires listed are subject to it',
          ),
        fires: z
          .array(
            z.object({
              slot: iso,
              source: z.enum(RUN_SOURCES),
              runId: z.string(),
              cancel: names,
              behind: names
                .optional()
                .describe('concurrencyPolicy buffer-one: the active runs its run would wait for (`waits`: overlap)'),
              start: iso.optional().describe('When its run is planned to start, if later than the slot (jitterMs)'),
              starts: z.boolean().describe('Leased at once; otherwise `waits` says why not'),
              waits: wait.optional(),
            }),
          )
          .describe('Slots between the stored cursor and `at` that would fire, oldest first'),
        skips: z.array(z.object({ slot: iso, reason: z.enum(SKIP_REASONS) })),
        waiting: z.array(wait).describe('Why the routine fires nothing now'),
        next: z.array(
          z.object({
            at: iso,
            local: z.string(),
            dst: z.enum(['gap', 'overlap']).optional(),
            /** Why this slot will not run: `excluded: <calendar>` or `skipped-by-operator: by <who>`. */
            skipped: z.string().optional(),
            start: iso.optional().describe('When its run is planned to start, if later than the slot (jitterMs)'),
          }),
        ),
        more: z.object({ fires: z.number().int(), skips: z.number().int() }).describe('Not listed (over `slots`)'),
      }),
    ),
    queues: z.object({ created: names, updated: names, removed: names, unchanged: names }),
    truncated: names.describe('Queues with more waiting runs than were read'),
  }),
  'What applying the bundle would make fire, skip and start at `at`, routine by routine, with reasons. ' +
    'Computed from the live state and the candidate; writes nothing.',
);

const planWhatIf = route({
  operationId: 'planWhatIf',
  method: 'POST',
  path: 'plan/what-if',
  summary: 'What a policy bundle would fire, skip and start if applied: the plan before an apply',
  description:
    `The body is a policy bundle as POST /apply takes it (YAML or JSON); every problem of an invalid one is listed. ` +
    `At most ${WHAT_IF_MAX_ROUTINES} routines. Each routine of the bundle, and each file routine it would remove, ` +
    `is answered with its change, the slots between its stored cursor and \`at\` that would fire or be skipped ` +
    `under its catch-up policy and deadline (a new routine has missed nothing), why it would not fire ` +
    `(paused, archived, disabled, backing off) and its next fires after \`at\`. Reads only: viewers may ask.`,
  tag: 'cluster',
  role: 'viewer',
  query: z.strictObject({
    at: isoInstantInput.optional().describe('The instant to plan at (default now)'),
    slots: z.coerce
      .number()
      .int()
      .min(1)
      .max(WHAT_IF_SLOTS.max)
      .default(WHAT_IF_SLOTS.default)
      .describe('Due fires and skipped slots listed per routine (the rest are counted in `more`)'),
    next: z.coerce
      .number()
      .int()
      .min(0)
      .max(WHAT_IF_NEXT.max)
      .default(WHAT_IF_NEXT.default)
      .describe('Next fires after `at` listed per routine'),
  }),
  body: z
    .union([
      z.string(),
      z.object({ queues: z.array(z.unknown()).optional(), routines: z.array(z.unknown()).optional() }).loose(),
    ])
    .optional(),
  bodyTypes: ['application/yaml', 'text/yaml'],
  responses: { 200: { description: 'The plan of the candidate bundle', schema: WhatIfSchema } },
});

/** The what-if with its instants as ISO 8601 (core keeps epoch ms). Pure. */
export function whatIfAnswer(w: WhatIfAnswer): z.output<typeof WhatIfSchema> {
  const waitOf = ({ until, ...x }: { reason: string; until?: number; detail?: string }) => ({
    ...x,
    ...optIso('until', until),
  });
  return {
    at: isoOf(w.at),
    now: isoOf(w.now),
    routines: w.routines.map((r) => ({
      ...r,
      fires: r.fires.map(({ slot, waits, start, ...f }) => ({
        ...f,
        slot: isoOf(slot),
        ...(start !== undefined && { start: isoOf(start) }),
        ...(waits && { waits: waitOf(waits) }),
      })),
      skips: r.skips.map((s) => ({ ...s, slot: isoOf(s.slot) })),
      waiting: r.waiting.map(waitOf),
      next: r.next.map(({ start, ...n }) => ({
        ...n,
        at: isoOf(n.at),
        ...(start !== undefined && { start: isoOf(start) }),
      })),
    })),
    queues: w.queues,
    truncated: w.truncated,
  };
}

@Controller('api/v1')
export class WhatIfController {
  constructor(
    private readonly policy: PolicyApply,
    private readonly plans: PlanWhatIf,
  ) {}

  @ApiRoute(planWhatIf)
  async whatIf(@In() { query, body }: RouteInput<typeof planWhatIf>) {
    if (body === undefined) {
      throw new ProblemError(415, 'send the bundle as application/json, application/yaml or text/yaml');
    }
    const bundle = await this.policy.parse(body);
    if (bundle.routines.length > WHAT_IF_MAX_ROUTINES) {
      const message = `has ${bundle.routines.length} routines; a what-if takes at most ${WHAT_IF_MAX_ROUTINES}`;
      throw new ProblemError(400, `invalid request: body.routines ${message}`, [{ path: 'body.routines', message }]);
    }
    const at = query.at === undefined ? undefined : parseIsoInstant(query.at);
    return whatIfAnswer(
      await this.plans.whatIf(bundle, { ...(at !== undefined && { at }), slots: query.slots, next: query.next }),
    );
  }
}
