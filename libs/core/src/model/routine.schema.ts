import { z } from 'zod';
import { exclusionsSchema } from './calendar.schema';
import { parseIsoInstant } from './iso-instant';
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
import { triggerSchema } from './trigger.schema';
import { DEFAULT_MISFIRE_GRACE_MS } from '../policy/misfire';
import type { ValidationOptions } from './validation-options';

/** `low|medium|high` or an integer in [-1000, 1000]; higher runs first (see `priorityValue`). */
export const prioritySchema = z.union([z.enum(PRIORITY_NAMES), z.number().int().min(-1000).max(1000)], {
  error: 'must be "low", "medium", "high" or an integer in [-1000, 1000]',
});
export type Priority = z.infer<typeof prioritySchema>;

export const CONCURRENCY_POLICIES = ['allow', 'forbid', 'replace'] as const;
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
  return routineObject(opts).superRefine(checkRoutineBounds);
}

/** What no single field shows: an `endAt` not after `startAt` (add it to a schema built from {@link routineObject}). */
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

/** The routine's fields without the checks across them (extend it, then add {@link checkRoutineBounds}). */
export function routineObject(opts?: ValidationOptions) {
  return z.strictObject({
    name: nameSchema,
    jobType: boundedString(MAX_JOB_TYPE_LENGTH).min(1),
    queue: nameSchema,
    trigger: triggerSchema(opts),
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
    /** Name of a registered condition check run before enqueueing. */
    condition: boundedString(MAX_HOOK_NAME_LENGTH).min(1).optional(),
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
