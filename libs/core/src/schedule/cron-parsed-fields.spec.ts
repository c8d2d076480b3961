import { CronExpressionParser, type CronField } from 'cron-parser';
import fc from 'fast-check';
import { checkCron } from '../model/cron-expression';
import { cronExpression } from '../testing/cron-expressions';
import { forgetParsedCronFields, parsedCronFields, type ParsedCronFields } from './cron-parsed-fields';

const NAMES = ['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'] as const;

/** What a next-slot computation can read of a field. */
function facts(field: CronField): Record<string, unknown> {
  return {
    values: field.values,
    isWildcard: field.isWildcard,
    hasLastChar: field.hasLastChar,
    hasQuestionMarkChar: field.hasQuestionMarkChar,
    ...('nthDay' in field && { nthDay: field.nthDay }),
  };
}

const factsOf = (fields: ParsedCronFields) => Object.fromEntries(NAMES.map((n) => [n, facts(fields[n])]));
const whole = (expr: string) => factsOf(CronExpressionParser.parse(expr).fields);

describe('parsedCronFields', () => {
  beforeEach(() => forgetParsedCronFields());

  it("answers cron-parser's parse of the whole expression, field by field, for random expressions", () => {
    let compared = 0;
    fc.assert(
      fc.property(cronExpression, (e) => {
        fc.pre(checkCron(e).ok); // cron-parser refuses some (a day no named month has, a weekday twice)
        // Asked twice: the first answer parses, the second is remembered; the memo is kept across
        // expressions, so later ones mix remembered fields with fresh ones.
        expect(factsOf(parsedCronFields(e))).toEqual(whole(e));
        expect(factsOf(parsedCronFields(e))).toEqual(whole(e));
        compared++;
      }),
      { numRuns: 2_000 },
    );
    expect(compared).toBe(2_000); // fast-check runs 2 000 accepted expressions
  });

  it('reads the day of the month with its month: a single month drops the days it lacks', () => {
    expect(parsedCronFields('0 0 28-31 2 *').dayOfMonth.values).toEqual([28, 29]);
    expect(parsedCronFields('0 0 28-31 * *').dayOfMonth.values).toEqual([28, 29, 30, 31]);
    expect(parsedCronFields('0 0 28-31 4 *').dayOfMonth.values).toEqual([28, 29, 30]);
  });

  it('gives a five-field expression second 0, as cron-parser does', () => {
    expect(parsedCronFields('17 4 12 7 *').second.values).toEqual([0]);
    expect(parsedCronFields('*/20 17 4 12 7 *').second.values).toEqual([0, 20, 40]);
  });

  it('stays right once the memo has started over', () => {
    // More distinct minute-and-hour pairs than the memo keeps, then an expression from the start.
    for (let i = 0; i < 5_000; i++) parsedCronFields(`${i % 60} ${Math.floor(i / 60) % 24} ${(i % 28) + 1} * *`);
    expect(factsOf(parsedCronFields('0 0 1 * *'))).toEqual(whole('0 0 1 * *'));
    expect(factsOf(parsedCronFields('59 23 28 * *'))).toEqual(whole('59 23 28 * *'));
  });
});
