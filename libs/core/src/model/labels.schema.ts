import { z } from 'zod';
import { MAX_LABEL_NAME_LENGTH, MAX_LABEL_PREFIX_LENGTH, MAX_LABEL_VALUE_LENGTH, MAX_LABELS } from './limits';

/** At most this many bad labels are named one by one; the rest are counted (an answer stays small). */
const MAX_NAMED = 5;

/** A label key or value as an error message may quote it: at most 40 characters. */
function quoted(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** What is wrong with one label, or undefined. Keys are `[prefix/]name` as in Kubernetes. */
function labelProblem(key: string, value: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash < 0 ? '' : key.slice(0, slash);
  const name = key.slice(slash + 1);
  if (name === '') return `key ${quoted(key)} has no name; use 1-${MAX_LABEL_NAME_LENGTH} characters, e.g. "team"`;
  if (name.length > MAX_LABEL_NAME_LENGTH) {
    return `key ${quoted(key)} has a name of ${name.length} characters; the limit is ${MAX_LABEL_NAME_LENGTH}`;
  }
  if (prefix.length > MAX_LABEL_PREFIX_LENGTH) {
    return `key ${quoted(key)} has a prefix of ${prefix.length} characters; the limit is ${MAX_LABEL_PREFIX_LENGTH}`;
  }
  if (value.length > MAX_LABEL_VALUE_LENGTH) {
    return `the value of ${quoted(key)} has ${value.length} characters; the limit is ${MAX_LABEL_VALUE_LENGTH}`;
  }
  return undefined;
}

/**
 * A routine's labels: at most {@link MAX_LABELS}; each key `[prefix/]name` with a name of 1-63
 * characters and a prefix of at most 253; each value at most 63 characters. Issues are at
 * `labels` and name the label (quoted, shortened), at most five of them, so a huge input
 * gets a short answer.
 */
export const labelsSchema = z.record(z.string(), z.string()).superRefine((labels, ctx) => {
  const entries = Object.entries(labels);
  if (entries.length > MAX_LABELS) {
    ctx.addIssue({ code: 'custom', message: `has ${entries.length} labels; the limit is ${MAX_LABELS}` });
  }
  const problems = entries.flatMap(([k, v]) => labelProblem(k, v) ?? []);
  for (const message of problems.slice(0, MAX_NAMED)) ctx.addIssue({ code: 'custom', message });
  if (problems.length > MAX_NAMED) {
    ctx.addIssue({ code: 'custom', message: `and ${problems.length - MAX_NAMED} more labels over their limits` });
  }
});
