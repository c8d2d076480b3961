import { CronExpressionParser } from 'cron-parser';

/** The cron fields in order for a 6-field expression (seconds first); a 5-field one omits `second`. */
const FIELDS = [
  { name: 'second', min: 0, max: 59 },
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day-of-week', min: 0, max: 7 },
] as const;

/** Result of checking a cron string: the field values cron-parser expanded, or a reason. */
export type CronCheck =
  | { ok: true; seconds: readonly number[]; minutes: readonly number[]; hours: readonly number[] }
  | { ok: false; reason: string };

/** Split a cron string into its whitespace-separated fields. */
export function cronFields(expr: string): string[] {
  return expr.trim().split(/\s+/).filter(Boolean);
}

function rangeProblem(field: string, spec: (typeof FIELDS)[number]): string | undefined {
  for (const item of field.split(',')) {
    if (/^H(\(|\/|$)/i.test(item)) return `${spec.name} uses hash (H) syntax, which is not supported`;
    const [range = '', step] = item.split('/');
    if (step !== undefined && !/^\d+$/.test(step)) return `${spec.name} step must be a positive integer`;
    if (step !== undefined && Number(step) === 0) return `${spec.name} step must be at least 1`;
    for (const part of range.split('-')) {
      if (/^\d+$/.test(part) && (Number(part) < spec.min || Number(part) > spec.max)) {
        return `${spec.name} must be ${spec.min}-${spec.max}`;
      }
    }
  }
  return undefined;
}

/**
 * Check that `expr` is a 5-field (`minute hour day-of-month month day-of-week`) or 6-field
 * (`second minute hour day-of-month month day-of-week`) cron expression cron-parser accepts.
 * Macros such as `@daily` are refused (write `0 0 * * *`). Pure; never throws.
 */
export function checkCron(expr: string): CronCheck {
  const fields = cronFields(expr);
  if (fields.length !== 5 && fields.length !== 6) {
    return {
      ok: false,
      reason: `has ${fields.length} field${fields.length === 1 ? '' : 's'}; expected 5 (minute hour day-of-month month day-of-week) or 6 (second first)`,
    };
  }
  const specs = fields.length === 6 ? FIELDS : FIELDS.slice(1);
  for (let i = 0; i < fields.length; i++) {
    const problem = rangeProblem(fields[i] as string, specs[i] as (typeof FIELDS)[number]);
    if (problem) return { ok: false, reason: problem };
  }
  try {
    const parsed = CronExpressionParser.parse(fields.join(' '), { tz: 'UTC', currentDate: 0 });
    const f = parsed.fields;
    return { ok: true, seconds: f.second.values, minutes: f.minute.values, hours: f.hour.values };
  } catch (err) {
    return { ok: false, reason: (err as Error).message.replace(/\.$/, '') };
  }
}

function minCyclicGap(values: readonly number[], cycle: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  let gap = cycle - (sorted[sorted.length - 1] ?? 0) + (sorted[0] ?? 0);
  for (let i = 1; i < sorted.length; i++) gap = Math.min(gap, (sorted[i] as number) - (sorted[i - 1] as number));
  return gap;
}

/**
 * A lower bound, in ms, on the wall-clock gap between two consecutive fires of a valid cron
 * (from the finest field with more than one value; one day if only the date fields vary).
 * Used to refuse schedules that fire more often than the configured floor. DST shifts are ignored.
 */
export function cronMinGapMs(check: Extract<CronCheck, { ok: true }>): number {
  if (check.seconds.length > 1) return minCyclicGap(check.seconds, 60) * 1000;
  if (check.minutes.length > 1) return minCyclicGap(check.minutes, 60) * 60_000;
  if (check.hours.length > 1) return minCyclicGap(check.hours, 24) * 3_600_000;
  return 86_400_000;
}
