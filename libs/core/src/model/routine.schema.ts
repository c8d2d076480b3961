import { z } from 'zod';
import { approvalPolicySchema } from './approval.schema';
import { exclusionsSchema } from './calendar.schema';
import { parseIsoInstant } from './iso-instant';
import { conditionSchema } from './condition.schema';
import { labelsSchema } from './labels.schema';
import {
  boundedString,
  MAX_HOOK_NAME_LENGTH,
  MAX_INSTANT_LENGTH,
  MAX_JOB_TYPE_LENGTH,
  MAX_OWNER_LENGTH,
  MAX_PAYLOAD_BYTES,
  MAX_SELECTOR_ARGS_BYTES,
} from './limits';
import { nameSchema } from './name.schema';
import { PRIORITY_NAMES } from './priority-name';
import { backoffSchema } from './queue.schema';
import { ROUTINE_STATUSES } from './routine-status';
import { checkPayload } from './payload.policy';
import { triggerSchema, triggersSchema } from './trigger.schema';
import { DEFAULT_MISFIRE_GRACE_MS } from '../policy/misfire';
import { MAX_JITTER_MS } from '../schedule/jitter';
import type { ValidationOptions } from './validation-options';

/** `low|medium|high` or an integer in [-1000, 1000]; higher runs first (see `priorityValue`). */
export const prioritySchema = z.union([z.enum(PRIORITY_NAMES), z.number().int().min(-1000).max(1000)], {
  error: 'must be "low", "medium", "high" or an integer in [-1000, 1000]',
});
export type Priority = z.infer<typeof prioritySchema>;

export const CONCURRENCY_POLICIES = ['allow', 'forbid', 'replace', 'buffer-one'] as const;
export const CATCH_UP_POLICIES = ['skip', 'last', 'all'] as const;
export type ConcurrencyPolicy = (typeof CONCURRENCY_POLICIES)[number];
export type CatchUpPolicy = (typeof CATCH_UP_POLICIES)[number];

/** Plain JSON within `maxBytes` (see `checkPayload`); issues at the field's own path. */
function jsonWithin<T extends z.ZodType>(schema: T, maxBytes: number) {
  return schema.superRefine((value, ctx) => {
    for (const issue of checkPayload(value, maxBytes)) {
      ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    }
  });
}

/** An ISO 8601 instant with an offset, refused with the value and an example otherwise. */
const instantSchema = boundedString(MAX_INSTANT_LENGTH).refine((v) => parseIsoInstant(v) !== undefined, {
  error: (i) =>
    `${JSON.stringify(i.input)} is not an ISO 8601 instant with an offset; e.g. "2026-12-24T18:00:00+01:00"`,
});

/**
 * Build the routine schema with the fire-rate floor from `opts`. Every string, list and map has
 * a bound from `./limits` (the whole definition's size is checked by `parseBundle`).
 */
export function routineSchema(opts?: ValidationOptions) {
  return routineFields(opts).superRefine((r, ctx) => {
    checkOneTriggerField(r, ctx);
    checkRoutineBounds(r, ctx);
  });
}

/** What no single field shows: an `endAt` not after `startAt` (add it to a schema built from {@link routineFields}). */
export function checkRoutineBounds(r: { startAt?: string; endAt?: string }, ctx: z.RefinementCtx): void {
  const start = r.startAt === undefined ? undefined : parseIsoInstant(r.startAt);
  const end = r.endAt === undefined ? undefined : parseIsoInstant(r.endAt);
  if (start !== undefined && end !== undefined && end <= start) {
    ctx.addIssue({
      code: 'custom',
      path: ['endAt'],
      message: `${JSON.stringify(r.endAt)} is not after startAt ${JSON.stringify(r.startAt)}; endAt must be later than startAt`,
    });
  }
}

/** A routine says when it fires in exactly one field: `trigger` (one) or `triggers` (a list). */
export function checkOneTriggerField(r: { trigger?: unknown; triggers?: unknown }, ctx: z.RefinementCtx): void {
  if (r.trigger !== undefined && r.triggers !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['triggers'],
      message: 'a routine has either "trigger" or "triggers", not both; move the trigger into the list',
    });
  } else if (r.trigger === undefined && r.triggers === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['trigger'],
      message:
        'required: a routine needs "trigger" (one) or "triggers" (a list of 2-8); e.g. {"kind": "cron", "cron": "0 2 * * *"}',
    });
  }
}

/** The routine's fields without the check across them ({@link checkOneTriggerField}): to extend, then check. */
export function routineFields(opts?: ValidationOptions) {
  return z.strictObject({
    name: nameSchema,
    jobType: boundedString(MAX_JOB_TYPE_LENGTH).min(1),
    queue: nameSchema,
    /** When it fires: exactly one of `trigger` and `triggers` (see `checkOneTriggerField`). */
    trigger: triggerSchema(opts)
      .optional()
      .describe('When the routine fires: one trigger. Exactly one of `trigger` and `triggers`.'),
    /**
     * Several schedules of one routine, 2-8 recurring triggers: their slots merge into one stream
     * (an instant two share is one slot, attributed to the first listed); overlap, catch-up and
     * slot claims stay per routine.
     */
    triggers: triggersSchema(opts)
      .optional()
      .describe(
        'Several schedules: 2-8 cron/interval triggers, each with an optional `name`; one merged stream of slots, an instant two share is one slot attributed to the first listed. Exactly one of `trigger` and `triggers`.',
      ),
    payload: jsonWithin(z.unknown().default({}), MAX_PAYLOAD_BYTES),
    priority: prioritySchema.default('medium'),
    concurrencyPolicy: z.enum(CONCURRENCY_POLICIES).default('allow'),
    catchUpPolicy: z.enum(CATCH_UP_POLICIES).default('skip'),
    maxCatchUp: z.number().int().positive().max(10_000).default(100),
    /** A fire started later than `slot + startingDeadlineMs` is skipped. Unset = no deadline. */
    startingDeadlineMs: z.number().int().nonnegative().optional(),
    /**
     * A slot dispatched at most this late (ms) runs normally; a later one is *missed* and follows
     * `catchUpPolicy`. At most an hour.
     */
    misfireGraceMs: z.number().int().nonnegative().max(3_600_000).default(DEFAULT_MISFIRE_GRACE_MS),
    /**
     * Spreads the routine's runs: each slot's run starts a fixed offset in [0, jitterMs) after the
     * slot, the same on every replica (see `plannedStart`). At most an hour and at most the
     * schedule's smallest gap between slots (checked by `parseBundle`).
     */
    jitterMs: z
      .number()
      .int()
      .nonnegative({ error: (i) => `jitterMs ${String(i.input)} is negative; use jitterMs in [0, ${MAX_JITTER_MS}]` })
      .max(MAX_JITTER_MS, {
        error: (i) => `jitterMs ${String(i.input)} is over the limit of ${MAX_JITTER_MS} ms (an hour)`,
      })
      .default(0),
    /**
     * Checked before enqueueing: the name of a registered `@Condition`, or a built-in kind as data
     * (`{kind: http, url, headers?}`, `{kind: queue-depth, queue, below}`).
     */
    condition: conditionSchema.optional(),
    /**
     * How long a condition check may take (ms). Past it the check's signal is aborted and the fire
     * counts as a launch failure (backoff, then disable after `maxLaunchFailures`).
     */
    conditionTimeoutMs: z.number().int().positive().max(600_000).default(10_000),
    maxLaunchFailures: z.number().int().positive().default(5),
    status: z.enum(ROUTINE_STATUSES).default('active'),
    owner: boundedString(MAX_OWNER_LENGTH).optional(),
    system: z.boolean().default(false),
    labels: labelsSchema.default({}),
    /** Optional per-routine overrides of the queue's job defaults. */
    maxAttempts: z.number().int().positive().optional(),
    timeoutMs: z.number().int().positive().optional(),
    backoff: backoffSchema.optional(),
    /** The routine's own approval gate, replacing its queue's (`{required: false}`: none). */
    approval: approvalPolicySchema.optional(),
    /**
     * A selector routine: instead of one fixed job, each tick asks the named candidate provider what is
     * owed and enqueues the top `maxPerTick` (band, then weighted staleness with `depthWeight`), each
     * with its `key` in the payload. Nothing owed backs the ticks off (×2 up to ×4) until a run succeeds.
     */
    selector: z
      .strictObject({
        provider: boundedString(MAX_HOOK_NAME_LENGTH).min(1),
        /** Passed to the provider as it is (e.g. `http.candidates` takes `{url, headers?}`); plain JSON. */
        args: jsonWithin(z.record(z.string(), z.unknown()), MAX_SELECTOR_ARGS_BYTES).optional(),
        maxPerTick: z.number().int().positive().max(100).default(1),
        depthWeight: z.number().nonnegative().max(10).default(0.5),
      })
      .optional(),
    /** Weighted-staleness inputs (see priority order): depth >= 0, emphasis >= 0. */
    depth: z.number().nonnegative().optional(),
    emphasis: z.number().nonnegative().optional(),
    /** No slot before this instant (ISO 8601 with an offset). */
    startAt: instantSchema.optional(),
    /** No slot after this instant: past it the routine stops firing, like a spent `once`. */
    endAt: instantSchema.optional(),
    /**
     * Exclusion calendars: a slot whose local date or minute one of them holds is recorded skipped
     * (`excluded`), never run and never armed. Names of the bundle's `calendars`, or inline ones.
     */
    exclude: exclusionsSchema.optional(),
  });
}

const _defaultRoutineSchema = routineSchema();
/** A validated routine with every default filled in. `payload` is plain JSON. */
export type Routine = z.infer<typeof _defaultRoutineSchema>;
/** A routine as written in a config file (defaults may be omitted). */
export type RoutineInput = z.input<typeof _defaultRoutineSchema>;

/**
 * Every field the schema fills in when it is omitted, with its default — derived from the schema,
 * so storage that leaves defaults out (to save bytes) can never disagree with validation.
 */
export const ROUTINE_DEFAULTS: Readonly<Partial<Routine>> = (() => {
  const {
    name: _n,
    jobType: _j,
    queue: _q,
    trigger: _t,
    ...defaults
  } = _defaultRoutineSchema.parse({
    name: 'x',
    jobType: 'x',
    queue: 'x',
    trigger: { kind: 'manual' },
  });
  return Object.freeze(defaults);
})();
