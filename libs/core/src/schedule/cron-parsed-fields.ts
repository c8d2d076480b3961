import { CronExpressionParser, type CronFieldCollection } from 'cron-parser';
import { cronFields } from '../model/cron-expression';

/** The parsed fields a next-slot computation reads. */
export type ParsedCronFields = Pick<
  CronFieldCollection,
  'second' | 'minute' | 'hour' | 'dayOfMonth' | 'month' | 'dayOfWeek'
>;

/** Field texts remembered; past this the memo starts over (it only saves work). */
const MAX_ENTRIES = 4_096;
const memo = new Map<string, unknown>();

function remembered<T>(key: string, parse: () => T): T {
  const hit = memo.get(key) as T | undefined;
  if (hit !== undefined) return hit;
  const value = parse();
  if (memo.size >= MAX_ENTRIES) memo.clear();
  memo.set(key, value);
  return value;
}

const fieldsOf = (expr: string): CronFieldCollection => CronExpressionParser.parse(expr).fields;

/**
 * cron-parser's parsed fields of `expr`, each remembered by its own text. cron-parser parses the
 * second, minute and hour fields each on its own, and the three day fields together (the day of
 * the month drops days its single month lacks), so they are parsed in those groups: routines with
 * expressions of their own (`17 4 12 7 *`, `18 4 12 7 *`, …) share the parse of each part, where
 * a whole-expression parse — about a third of a next-slot computation — would be paid per routine.
 * `expr` must be an expression cron-parser accepts. A memo, not state.
 */
export function parsedCronFields(expr: string): ParsedCronFields {
  const atoms = cronFields(expr);
  // A five-field expression has cron-parser's default second.
  const [second = '0', minute = '*', hour = '*', dayOfMonth = '*', month = '*', dayOfWeek = '*'] =
    atoms.length === 6 ? atoms : ['0', ...atoms];
  const days = remembered(`d ${dayOfMonth} ${month} ${dayOfWeek}`, () =>
    fieldsOf(`0 0 0 ${dayOfMonth} ${month} ${dayOfWeek}`),
  );
  return {
    second: remembered(`s ${second}`, () => fieldsOf(`${second} 0 0 * * *`).second),
    minute: remembered(`m ${minute}`, () => fieldsOf(`0 ${minute} 0 * * *`).minute),
    hour: remembered(`h ${hour}`, () => fieldsOf(`0 0 ${hour} * * *`).hour),
    dayOfMonth: days.dayOfMonth,
    month: days.month,
    dayOfWeek: days.dayOfWeek,
  };
}

/** Forgets every remembered field (tests compare the memo with a fresh parse). */
export function forgetParsedCronFields(): void {
  memo.clear();
}
