import { z } from 'zod';
import { checkCron, cronMinGapMs } from './cron-expression';
import { parseIsoInstant } from './iso-instant';
import { isValidTimeZone } from '../time/time-zone';
import { boundedString as bounded, MAX_CRON_LENGTH, MAX_INSTANT_LENGTH, MAX_TZ_LENGTH } from './limits';
import { resolveValidationOptions, type ValidationOptions } from './validation-options';

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

/** When a routine fires: `cron` (5/6 fields, optional IANA `tz`), `interval` (epoch grid), `once` (ISO `at`), `manual`. */
export type Trigger = z.infer<typeof baseTrigger>;
export type CronTrigger = z.infer<typeof cronTrigger>;
export type IntervalTrigger = z.infer<typeof intervalTrigger>;
export type OnceTrigger = z.infer<typeof onceTrigger>;

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Build the trigger schema with the fire-rate floor from `opts` (default: at most once per second). */
export function triggerSchema(opts?: ValidationOptions) {
  const { minFireIntervalMs: floor } = resolveValidationOptions(opts);
  return baseTrigger.superRefine((t, ctx) => {
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
  });
}
