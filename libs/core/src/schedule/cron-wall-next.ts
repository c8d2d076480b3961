import type { ParsedCronFields } from './cron-parsed-fields';

const DAY_MS = 86_400_000;
/** Days looked at before leaving the walk to cron-parser (a `0 0 29 2 *` can be 8 years away). */
const MAX_SEEK_DAYS = 3_000;

/** Which wall-clock days can hold a slot, judged from the month and day fields alone. */
interface DayRule {
  months: ReadonlySet<number>;
  allows: (day: Date) => boolean;
}

/** The fields' values when every one is a plain number (cron-parser keeps `L` forms as strings). */
function numbers(values: readonly unknown[]): number[] | undefined {
  return values.every((v) => typeof v === 'number') ? (values as number[]) : undefined;
}

/**
 * The day rule of cron-parser's parsed fields, or undefined when the day fields use a form whose
 * meaning depends on more than the date's month, day and weekday (`L`, `#`): those are left to
 * cron-parser. The rules are cron-parser's own: with both day fields restricted a day needs either,
 * with one restricted it needs that one.
 */
function dayRule(fields: ParsedCronFields): DayRule | undefined {
  const dom = fields.dayOfMonth;
  const dow = fields.dayOfWeek;
  if (dom.hasLastChar || dow.hasLastChar || dow.nthDay !== 0) return undefined;
  const monthList = numbers(fields.month.values);
  const dayList = numbers(dom.values);
  const weekdayList = numbers(dow.values);
  if (!monthList || !dayList || !weekdayList) return undefined;
  const months = new Set(monthList);
  const days = new Set(dayList);
  const weekdays = new Set(weekdayList); // cron-parser has already read a weekday of 7 as Sunday (0)
  const inMonth = (d: Date) => months.has(d.getUTCMonth() + 1);
  let allows: DayRule['allows'];
  if (dom.isWildcard && dow.isWildcard) allows = inMonth;
  else if (dow.isWildcard) allows = (d) => inMonth(d) && days.has(d.getUTCDate());
  else if (dom.isWildcard) allows = (d) => inMonth(d) && weekdays.has(d.getUTCDay());
  else allows = (d) => inMonth(d) && (days.has(d.getUTCDate()) || weekdays.has(d.getUTCDay()));
  return { months, allows };
}

/** The earliest time of day (ms after midnight) the time fields name strictly after `afterMs`, if any. */
function timeOfDayAfter(hours: number[], minutes: number[], seconds: number[], afterMs: number): number | undefined {
  for (const h of hours) {
    if ((h + 1) * 3_600_000 <= afterMs + 1) continue; // all of hour h is at or before afterMs
    for (const m of minutes) {
      const minute = h * 3_600_000 + m * 60_000;
      if (minute + 60_000 <= afterMs + 1) continue;
      for (const s of seconds) if (minute + s * 1000 > afterMs) return minute + s * 1000;
    }
  }
  return undefined;
}

/**
 * For cron-parser's parsed `fields`, a function answering the first slot (fake-UTC ms, whole
 * seconds) strictly after wall-clock `wallMs` — what cron-parser's own walk over UTC answers (the
 * property test compares them), without the walk. Undefined for day fields with `L` or `#`; the
 * function answers undefined when no allowed day comes within about eight years. Either way the
 * caller walks with cron-parser instead.
 *
 * Why: cron-parser reaches a far day one luxon step per month and per day, a few µs each, so a
 * routine with an expression of its own (`17 4 12 7 *`) costs hundreds of µs per next slot; a
 * reconcile of 100 000 such routines, and the watchdog's first look at them, pay that for each.
 */
export function wallSlotFinder(fields: ParsedCronFields): ((wallMs: number) => number | undefined) | undefined {
  const rule = dayRule(fields);
  const hours = numbers(fields.hour.values);
  const minutes = numbers(fields.minute.values);
  const seconds = numbers(fields.second.values);
  if (!rule || !hours || !minutes || !seconds) return undefined;
  // cron-parser keeps each field's values sorted: the first of each is a day's first slot.
  const first = hours[0]! * 3_600_000 + minutes[0]! * 60_000 + seconds[0]! * 1000;
  return (wallMs) => {
    const day = new Date(Math.floor(wallMs / DAY_MS) * DAY_MS);
    if (rule.allows(day)) {
      const time = timeOfDayAfter(hours, minutes, seconds, wallMs - day.getTime());
      if (time !== undefined) return day.getTime() + time;
    }
    for (let i = 0; i < MAX_SEEK_DAYS; i++) {
      if (rule.months.has(day.getUTCMonth() + 1)) day.setUTCDate(day.getUTCDate() + 1);
      else day.setUTCMonth(day.getUTCMonth() + 1, 1); // a month it does not name: its first day next
      if (rule.allows(day)) return day.getTime() + first;
    }
    return undefined;
  };
}
