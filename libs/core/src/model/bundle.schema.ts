import { z } from 'zod';
import { queueSchema, type Queue } from './queue.schema';
import { routineSchema, type Routine } from './routine.schema';
import { unknownFieldMessage } from './unknown-field';
import { resolveValidationOptions, type ValidationOptions } from './validation-options';

/** Policy as data (spec §5): the queues and routines of a `DROVER_CONFIG` file or `POST /apply` body. */
export interface Bundle {
  queues: Queue[];
  routines: Routine[];
}

export type ParseBundleResult = { ok: true; bundle: Bundle } | { ok: false; errors: string[] };

function label(raw: unknown, section: string, index: number): string {
  const list = (raw as Record<string, unknown> | null)?.[section];
  const item = Array.isArray(list) ? (list[index] as Record<string, unknown> | null) : undefined;
  const name = item && typeof item === 'object' ? item['name'] : undefined;
  return typeof name === 'string' && name !== '' ? `${section}[${name}]` : `${section}[${index}]`;
}

/** Render a zod issue path as `routines[nightly-backup].trigger.cron`, using names where the input has them. */
function renderPath(raw: unknown, path: readonly PropertyKey[]): string {
  const [section, index, ...rest] = path;
  if (section === undefined) return '(bundle)';
  let out = typeof index === 'number' ? label(raw, String(section), index) : String(section);
  if (index !== undefined && typeof index !== 'number') rest.unshift(index);
  for (const key of rest) out += typeof key === 'number' ? `[${key}]` : `.${String(key)}`;
  return out;
}

const KNOWN_FIELDS: Record<string, string[]> = {
  queues: Object.keys(queueSchema.shape),
  routines: Object.keys(routineSchema().shape),
};

function renderMessage(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'unrecognized_keys') return issue.message;
  const known = issue.path.length === 2 ? KNOWN_FIELDS[String(issue.path[0])] : undefined;
  return issue.keys.map((key) => unknownFieldMessage(key, known)).join('; ');
}

function duplicates(names: readonly string[]): string[] {
  return [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
}

/**
 * Validate a bundle `{queues: [...], routines: [...]}` (either list may be omitted) and fill in defaults.
 * Never throws. Each error names the item and field and says what would be valid, e.g.
 * `routines[nightly-backup].trigger.cron: "61 * * * *" is not a valid cron expression (minute must be 0-59); e.g. "0 2 * * *"`.
 * Also checks that names are unique and that each routine's queue is defined (bundle or `opts.knownQueues`).
 */
export function parseBundle(raw: unknown, opts?: ValidationOptions): ParseBundleResult {
  const resolved = resolveValidationOptions(opts);
  const schema = z.strictObject({
    queues: z.array(queueSchema).default([]),
    routines: z.array(routineSchema(opts)).default([]),
  });
  const result = schema.safeParse(raw ?? {});
  if (!result.success) {
    return {
      ok: false,
      errors: result.error.issues.map((issue) => `${renderPath(raw, issue.path)}: ${renderMessage(issue)}`),
    };
  }
  const bundle = result.data;
  const errors: string[] = [];
  for (const name of duplicates(bundle.queues.map((q) => q.name))) {
    errors.push(`queues[${name}].name: defined more than once; queue names must be unique`);
  }
  for (const name of duplicates(bundle.routines.map((r) => r.name))) {
    errors.push(`routines[${name}].name: defined more than once; routine names must be unique`);
  }
  if (resolved.checkQueueRefs) {
    const known = new Set([...bundle.queues.map((q) => q.name), ...resolved.knownQueues]);
    for (const r of bundle.routines) {
      if (!known.has(r.queue)) {
        const list = [...known].sort().join(', ') || '(none)';
        errors.push(`routines[${r.name}].queue: queue "${r.queue}" is not defined; defined queues: ${list}`);
      }
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, bundle };
}
