import fc from 'fast-check';

const n = (min: number, max: number) => fc.integer({ min, max });

/** One cron field between `min` and `max`: `*`, a value, a range, steps, a list, or one of `extra`. */
function field(min: number, max: number, extra: fc.Arbitrary<string>[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant('*'),
    n(min, max).map(String),
    fc.tuple(n(min, max), n(min, max)).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
    fc.tuple(n(min, max), n(2, 9)).map(([a, s]) => `${a}/${s}`),
    n(2, 9).map((s) => `*/${s}`),
    fc.uniqueArray(n(min, max), { minLength: 2, maxLength: 4 }).map((xs) => xs.join(',')),
    ...extra,
  );
}

/**
 * Random 5- and 6-field cron expressions: ranges, steps, lists, month and weekday names, `?`, and
 * the day forms whose meaning needs more than the date (`L`, `5L`, `1#2`). Some are refused by
 * cron-parser (a day no named month has): filter with core's `checkCron`, as routines are.
 */
export const cronExpression: fc.Arbitrary<string> = fc
  .tuple(
    fc.option(field(0, 59), { freq: 3 }),
    field(0, 59),
    field(0, 23),
    field(1, 31, [fc.constant('L'), fc.constant('?')]),
    field(1, 12, [fc.constantFrom('JAN', 'FEB', 'MAR-JUN', 'jul,aug', 'NOV-DEC')]),
    field(0, 7, [
      fc.constantFrom('MON-FRI', 'SUN', 'sat,sun', 'TUE', '?'),
      n(0, 6).map((d) => `${d}L`),
      fc.tuple(n(0, 6), n(1, 5)).map(([d, k]) => `${d}#${k}`),
    ]),
  )
  .map(([sec, ...rest]) => (sec === null ? rest : [sec, ...rest]).join(' '));
