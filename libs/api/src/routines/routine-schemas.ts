import { z } from 'zod';
import {
  checkOneTriggerField,
  checkRoutineBounds,
  nameSchema,
  ORIGINS,
  routineFields,
  ROUTINE_STATUSES,
  routineSchema,
  RUN_STATUSES,
  STATS_STATUSES,
} from '@drover/core';
import { isoSchema as iso } from '../http/api-time';
import { named } from '../openapi/api-schemas';
import { RunSchema } from '../runs/run-schema';

/** A routine's definition as core validates it (every default filled in). */
export const RoutineDefinitionSchema = named('RoutineDefinition', routineSchema());

/** The body of POST /routines: a routine as written in a policy file. */
export const routineBody = routineSchema();
/** The body of PUT /routines/{name}: the same, `name` may be omitted (the path names it). */
export const routinePutBody = routineFields()
  .extend({ name: nameSchema.optional() })
  .superRefine((r, ctx) => {
    checkOneTriggerField(r, ctx);
    checkRoutineBounds(r, ctx);
  });

export const nameParams = z.strictObject({ name: nameSchema });

export const LastRunSchema = named(
  'RoutineLastRun',
  z.object({ id: z.string(), status: z.enum(RUN_STATUSES), at: iso, scheduledFor: iso.nullable() }),
);

export const RoutineSchema = named(
  'Routine',
  z.object({
    name: z.string(),
    definition: RoutineDefinitionSchema,
    /** `file`: from the policy file (apply manages it); `api`: made through the API (apply leaves it alone). */
    origin: z.enum(ORIGINS),
    /** A file routine changed through the API since the last apply. */
    drifted: z.boolean(),
    drift: z.object({ by: z.string().optional(), at: iso }).nullable(),
    version: z.number().int(),
    status: z.enum(ROUTINE_STATUSES),
    /** Why the scheduler disabled it (repeated launch failures), or null. */
    disabledReason: z.string().nullable(),
    /** The launcher's health: condition checks and launches failing in a row, backoff, the disable. */
    launcher: z.object({
      /** Launch failures in a row (a healthy launch or a `false` condition resets it). */
      consecutiveFailures: z.number().int(),
      /** No launch is attempted before this instant; null when not backing off. */
      backoffUntil: iso.nullable(),
      /** The newest launch failure's error while failures run; null after a healthy launch. */
      lastError: z.string().nullable(),
      /** When the launcher disabled the routine; null when it is not disabled. */
      disabledAt: iso.nullable(),
    }),
    pause: z
      .object({ at: iso, by: z.string().optional(), note: z.string().optional(), until: iso.optional() })
      .nullable(),
    /** While archived: when and by whom (none for an archive the policy file made). */
    archive: z.object({ at: iso, by: z.string().optional() }).nullable(),
    /** When it fires next; null while paused, disabled or archived, for manual routines and spent once routines. */
    nextFireAt: iso.nullable(),
    lastRun: LastRunSchema.nullable(),
    createdAt: iso,
    updatedAt: iso,
    createdBy: z.string().optional(),
    updatedBy: z.string().optional(),
  }),
);

export const RoutinePageSchema = named(
  'RoutinePage',
  z.object({ items: z.array(RoutineSchema), next_page_token: z.string().optional() }),
);

/** A routine's runs: the same `Run` as everywhere else in the API. */
export const RoutineRunPageSchema = named('RoutineRunPage', z.object({ items: z.array(RunSchema) }));

export const PreviewSchema = named(
  'RoutinePreview',
  z.object({
    routine: z.string(),
    /**
     * The zone local times are given in (the cron trigger's `tz`, else UTC). With a `triggers` list:
     * the first trigger's; each item's `local` is in the zone of its own trigger (its offset says so).
     */
    tz: z.string(),
    paused: z.boolean(),
    items: z.array(
      z.object({
        at: iso,
        trigger: z
          .string()
          .optional()
          .describe(
            'For a routine with a `triggers` list: the trigger this fire is attributed to (its name, else its index)',
          ),
        local: z.string().describe('local time with its UTC offset'),
        dst: z.enum(['gap', 'overlap']).optional(),
        /** Why this slot will not run, as it will be recorded: `excluded: <calendar>` or `skipped-by-operator: by <who>`. */
        skipped: z.string().optional(),
        start: iso.optional().describe('When its run is planned to start, if later than the slot (jitterMs)'),
      }),
    ),
  }),
);

const percentiles = z.object({ p50: z.number().nullable(), p95: z.number().nullable(), p99: z.number().nullable() });

export const StatsSchema = named(
  'RoutineStats',
  z.object({
    routine: z.string(),
    window: z.string(),
    /** Stats are kept per hour: the answer covers whole hours from `from` to now. */
    from: iso,
    to: iso,
    counts: z.object(
      Object.fromEntries(STATS_STATUSES.map((s) => [s, z.number().int()])) as Record<
        (typeof STATS_STATUSES)[number],
        z.ZodNumber
      >,
    ),
    total: z.number().int(),
    /** succeeded / (succeeded + parked); null when no run ended by running. */
    successRatio: z.number().nullable(),
    durationMs: percentiles,
    latenessMs: percentiles,
    lastRun: LastRunSchema.nullable(),
  }),
);

export const BackfillSchema = named(
  'BackfillResult',
  z.object({
    /** Run ids of the slots backfilled, oldest slot first. */
    runIds: z.array(z.string()),
    created: z.array(z.string()),
    /** Slots that already had a run (the scheduler's or an earlier backfill's). */
    existing: z.array(z.string()),
    /** Older slots in the range left out by the routine's maxCatchUp (at least this many if `cappedExact` is false). */
    capped: z.number().int(),
    cappedExact: z.boolean(),
  }),
);

export const TriggerSchema = named('TriggerResult', z.object({ runId: z.string() }));

const diff = z.object({
  created: z.array(z.string()),
  updated: z.array(z.string()),
  removed: z.array(z.string()),
  unchanged: z.array(z.string()),
});

export const ApplySchema = named(
  'ApplyResult',
  z.object({
    dryRun: z.boolean(),
    /** Routines, by name. */
    created: z.array(z.string()),
    updated: z.array(z.string()),
    removed: z.array(z.string()),
    unchanged: z.array(z.string()),
    queues: diff,
  }),
);
