import { z } from 'zod';
import { checkCron, cronMinGapMs } from './cron-expression';
import { parseIsoInstant } from './iso-instant';
import { isValidTimeZone } from '../time/time-zone';
import { boundedString as bounded, MAX_CRON_LENGTH, MAX_INSTANT_LENGTH, MAX_TZ_LENGTH } from './limits';
import { resolveValidationOptions, type ValidationOptions } from './validation-options';
import { mergedGapBelow } from '../schedule/merged-gap';

const positiveInt = z.number().int().positive();

const cronTrigger = z.strictObject({
  kind: z.literal('cron'),
  cron: bounded(MAX_CRON_LENGTH),
  tz: bounded(MAX_TZ_LENGTH).optional(),
});
const intervalTrigger = z.strictObject({
  kind: z.literal('interval'),
  everyMs: positiveInt,
  offsetMs: z.number().int().nonnegative().optional(),
});
const onceTrigger = z.strictObject({ kind: z.literal('once'), at: bounded(MAX_INSTANT_LENGTH) });
const manualTrigger = z.strictObject({ kind: z.literal('manual') });

const baseTrigger = z.discriminatedUnion('kind', [cronTrigger, intervalTrigger, onceTrigger, manualTrigger], {
  error: 'kind must be one of "cron", "interval", "once", "manual"',
});

/** How many triggers a routine's `triggers` list holds: two (one is `trigger`) to eight. */
export const MIN_TRIGGERS = 2;
export const MAX_TRIGGERS = 8;

/**
 * A trigger's name in a `triggers` list: what its slots are attributed to. Starts with a letter, so
 * it never reads as the index an unnamed trigger is attributed to.
 */
export const TRIGGER_NAME_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;
const triggerName = z.string().check((ctx) => {
  if (!TRIGGER_NAME_PATTERN.test(ctx.value)) {
    ctx.issues.push({
      code: 'custom',
      input: ctx.value,
      message: `${JSON.stringify(ctx.value)} is not a valid trigger name; use 1-32 of a-z 0-9 - starting with a letter, e.g. "weekdays"`,
    });
  }
});

/**
 * One trigger of a `triggers` list: recurring only (cron or interval). A one-off (`once`) or a
 * `manual` routine has a single `trigger`; a list mixing them would fire on a schedule and also not.
 */
const listedTrigger = z.discriminatedUnion(
  'kind',
  [cronTrigger.extend({ name: triggerName.optional() }), intervalTrigger.extend({ name: triggerName.optional() })],
  { error: 'kind must be one of "cron", "interval" in a triggers list ("once" and "manual" are single triggers)' },
);
/** A trigger of a routine's `triggers` list, with the optional name its slots are attributed to. */
export type ListedTrigger = z.infer<typeof listedTrigger>;

/** When a routine fires: `cron` (5/6 fields, optional IANA `tz`), `interval` (epoch grid), `once` (ISO `at`), `manual`. */
export type Trigger = z.infer<typeof baseTrigger>;
export type CronTrigger = z.infer<typeof cronTrigger>;
export type IntervalTrigger = z.infer<typeof intervalTrigger>;
export type OnceTrigger = z.infer<typeof onceTrigger>;

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

type RefineCtx = z.RefinementCtx;

/** The checks of one trigger that zod's shape cannot say: cron syntax, zone, the fire-rate floor, offsets, instants. */
function checkTrigger(t: Trigger, ctx: RefineCtx, floor: number): void {
  // A field over its length limit has its issue already; parsing it would only cost time.
  if (t.kind === 'cron' && t.cron.length <= MAX_CRON_LENGTH && (t.tz?.length ?? 0) <= MAX_TZ_LENGTH) {
    const check = checkCron(t.cron);
    if (!check.ok) {
      ctx.addIssue({
        code: 'custom',
        path: ['cron'],
        message: `${JSON.stringify(t.cron)} is not a valid cron expression (${check.reason}); e.g. "0 2 * * *"`,
      });
    } else if (cronMinGapMs(check) < floor) {
      ctx.addIssue({
        code: 'custom',
        path: ['cron'],
        message: `${JSON.stringify(t.cron)} may fire every ${seconds(cronMinGapMs(check))}; the floor is one fire per ${seconds(floor)}`,
      });
    }
    if (t.tz !== undefined && !isValidTimeZone(t.tz)) {
      ctx.addIssue({
        code: 'custom',
        path: ['tz'],
        message: `${JSON.stringify(t.tz)} is not an IANA time zone; e.g. "Europe/Berlin", "America/New_York", "UTC"`,
      });
    }
  } else if (t.kind === 'interval') {
    if (t.everyMs < floor) {
      ctx.addIssue({
        code: 'custom',
        path: ['everyMs'],
        message: `${t.everyMs} is below the floor of ${floor} ms between fires; use everyMs >= ${floor}`,
      });
    }
    if (t.offsetMs !== undefined && t.offsetMs >= t.everyMs) {
      ctx.addIssue({
        code: 'custom',
        path: ['offsetMs'],
        message: `${t.offsetMs} must be in [0, everyMs) = [0, ${t.everyMs})`,
      });
    }
  } else if (t.kind === 'once' && t.at.length <= MAX_INSTANT_LENGTH && parseIsoInstant(t.at) === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['at'],
      message: `${JSON.stringify(t.at)} is not an ISO 8601 instant with an offset; e.g. "2026-12-24T18:00:00Z"`,
    });
  }
}

/** Build the trigger schema with the fire-rate floor from `opts` (default: at most once per second). */
export function triggerSchema(opts?: ValidationOptions) {
  const { minFireIntervalMs: floor } = resolveValidationOptions(opts);
  return baseTrigger.superRefine((t, ctx) => checkTrigger(t, ctx, floor));
}

/**
 * Build the schema of a routine's `triggers` list: 2 to 8 recurring triggers, each checked as a
 * single trigger is, names unique, and the merged stream held to the same floor (two distinct
 * slots of different triggers closer than it are refused; see `mergedGapBelow`).
 */
export function triggersSchema(opts?: ValidationOptions) {
  const { minFireIntervalMs: floor } = resolveValidationOptions(opts);
  const one = listedTrigger.superRefine((t, ctx) => checkTrigger(t, ctx, floor));
  return z
    .array(one)
    .min(MIN_TRIGGERS, { error: `must list ${MIN_TRIGGERS} to ${MAX_TRIGGERS} triggers; use "trigger" for one` })
    .max(MAX_TRIGGERS, { error: `must list ${MIN_TRIGGERS} to ${MAX_TRIGGERS} triggers` })
    .superRefine((list, ctx) => {
      const seen = new Map<string, number>();
      list.forEach((t, i) => {
        if (t.name === undefined) return;
        const first = seen.get(t.name);
        if (first !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [i, 'name'],
            message: `${JSON.stringify(t.name)} is already the name of triggers[${first}]; trigger names must be unique`,
          });
        } else seen.set(t.name, i);
      });
      // Zod runs this even when a trigger failed its own checks: walk the stream only when all pass.
      const sound = (t: ListedTrigger) =>
        t.kind === 'interval'
          ? t.everyMs >= floor && (t.offsetMs ?? 0) < t.everyMs
          : t.cron.length <= MAX_CRON_LENGTH && checkCron(t.cron).ok && (t.tz === undefined || isValidTimeZone(t.tz));
      if (!list.every(sound)) return;
      const gap = mergedGapBelow(list, floor);
      if (gap !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [],
          message: `two triggers fire ${seconds(gap)} apart; the floor is one fire per ${seconds(floor)} (slots at the same instant are one)`,
        });
      }
    });
}
