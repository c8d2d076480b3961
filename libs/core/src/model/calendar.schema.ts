import { z } from 'zod';
import { checkCron } from './cron-expression';
import { boundedString, MAX_CRON_LENGTH, MAX_TZ_LENGTH } from './limits';
import { nameSchema } from './name.schema';
import { isValidTimeZone } from '../time/time-zone';

/** Most dates one calendar lists (a decade of public holidays fits). */
export const MAX_CALENDAR_DATES = 500;
/** Most named calendars one bundle defines. */
export const MAX_CALENDARS = 50;
/** Most exclusions (named or inline) one routine lists. */
export const MAX_EXCLUSIONS = 10;

const LOCAL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `text` is a real calendar date `YYYY-MM-DD` (no Feb 30). */
export function isLocalDate(text: string): boolean {
  const m = LOCAL_DATE.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === text;
}

/**
 * An exclusion calendar: local `dates` (`YYYY-MM-DD`) and/or a cron-like `cron` pattern over local
 * minutes (`* * 25 12 *`: all of every 25 December), read in `tz` (default: the routine's cron
 * zone, else UTC). A slot whose local date is listed, or whose local minute the pattern names, is
 * excluded. `name` is the bundle calendar it came from (filled in when a routine names one).
 */
export const calendarSchema = z
  .strictObject({
    name: nameSchema.optional(),
    dates: z
      .array(
        z.string().refine(isLocalDate, {
          error: (i) => `${JSON.stringify(i.input)} is not a date YYYY-MM-DD; e.g. "2026-12-25"`,
        }),
      )
      .optional(),
    cron: boundedString(MAX_CRON_LENGTH).optional(),
    tz: boundedString(MAX_TZ_LENGTH).optional(),
  })
  .superRefine((c, ctx) => {
    // Checked here, not with `.max`: inside the routine's union a size issue would hide behind "matches none".
    if (c.dates !== undefined && c.dates.length > MAX_CALENDAR_DATES) {
      ctx.addIssue({
        code: 'custom',
        path: ['dates'],
        message: `lists ${c.dates.length} dates; the limit is ${MAX_CALENDAR_DATES}`,
      });
    }
    if (c.dates === undefined && c.cron === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'names no day: give `dates` (YYYY-MM-DD) or `cron`, or both' });
    }
    if (c.cron !== undefined && c.cron.length <= MAX_CRON_LENGTH) {
      const check = checkCron(c.cron);
      if (!check.ok) {
        ctx.addIssue({
          code: 'custom',
          path: ['cron'],
          message: `${JSON.stringify(c.cron)} is not a valid cron pattern (${check.reason}); e.g. "* * 25 12 *" (all of 25 December)`,
        });
      }
    }
    if (c.tz !== undefined && c.tz.length <= MAX_TZ_LENGTH && !isValidTimeZone(c.tz)) {
      ctx.addIssue({
        code: 'custom',
        path: ['tz'],
        message: `${JSON.stringify(c.tz)} is not an IANA time zone; e.g. "Europe/Berlin", "UTC"`,
      });
    }
  });
export type Calendar = z.infer<typeof calendarSchema>;

/**
 * A routine's `exclude`: names of bundle calendars (resolved by `parseBundle` into the calendar
 * itself, its name kept) or inline calendars. A name left unresolved is a validation error.
 */
export const exclusionsSchema = z
  .array(z.union([nameSchema, calendarSchema]))
  .max(MAX_EXCLUSIONS, {
    error: (i) => `lists ${(i.input as unknown[]).length} exclusions; the limit is ${MAX_EXCLUSIONS}`,
  })
  .superRefine((list, ctx) => {
    list.forEach((entry, i) => {
      if (typeof entry !== 'string') return;
      ctx.addIssue({
        code: 'custom',
        path: [i],
        message: `calendar ${JSON.stringify(entry)} is not defined; name a calendar of the bundle's \`calendars\` or write it inline ({dates: [...]} or {cron: "..."})`,
      });
    });
  });
