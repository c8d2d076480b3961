import type { z } from 'zod';

/** What a value is, as a problem line names it: `a string`, `a list`, `a mapping`. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return Number.isInteger(value) ? 'an integer' : 'a number';
    case 'boolean':
      return `${String(value)} (a boolean)`;
    case 'object':
      return 'a mapping';
    default:
      return typeof value;
  }
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a mapping (field: value)',
  array: 'a list',
  record: 'a mapping (key: value)',
  null: 'null',
};

const quoted = (v: unknown) => (typeof v === 'string' ? `"${v}"` : String(v));

function sizeWords(origin: string, bound: number | bigint, inclusive: boolean | undefined, least: boolean): string {
  const n = Number(bound);
  if (origin === 'string')
    return least && n === 1 ? 'must not be empty' : `must be ${least ? 'at least' : 'at most'} ${n} characters`;
  if (origin === 'array' || origin === 'set') {
    return least && n === 1
      ? 'must not be empty'
      : `must have ${least ? 'at least' : 'at most'} ${n} item${n === 1 ? '' : 's'}`;
  }
  if (inclusive === false) return `must be ${least ? 'greater' : 'less'} than ${n}`;
  return `must be ${least ? 'at least' : 'at most'} ${n}`;
}

/**
 * A problem of a policy file in Drover's words, for the zod issues whose message no schema of
 * Drover sets (zod's own read "Invalid input: expected string, received undefined"). Passed as
 * the per-parse error map, so a message a schema sets itself wins. Undefined: zod's message.
 */
export function droverIssueWords(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type': {
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      if (issue.input === undefined) return `missing (${expected} is required)`;
      if (issue.expected === 'int' && typeof issue.input === 'number') return `must be an integer, not ${issue.input}`;
      return `must be ${expected}, not ${kindOf(issue.input)}`;
    }
    case 'too_small':
      return sizeWords(issue.origin, issue.minimum, issue.inclusive, true);
    case 'too_big':
      return sizeWords(issue.origin, issue.maximum, issue.inclusive, false);
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${quoted(issue.values[0])}`
        : `must be one of ${issue.values.map(quoted).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'regex'
        ? 'has characters or a shape this field does not allow'
        : `is not a valid ${issue.format}`;
    case 'invalid_union':
      return 'matches none of the forms this field takes';
    default:
      return undefined;
  }
}
