import { z } from 'zod';
import { calendarSchema, MAX_CALENDARS, type Calendar } from './calendar.schema';
import { bytesText, jsonBytes, MAX_ROUTINE_BYTES } from './limits';
import { nameSchema } from './name.schema';
import { queueSchema, type Queue } from './queue.schema';
import { CONCURRENCY_POLICIES, routineSchema, type Routine } from './routine.schema';
import { droverIssueWords } from './issue-words';
import { jitterProblem } from '../schedule/jitter';
import { fieldsAt, unknownFieldMessage } from './unknown-field';
import { resolveValidationOptions, type ValidationOptions } from './validation-options';

/** Policy as data (docs/core.md): the queues and routines of a `DROVER_CONFIG` file or `POST /apply` body. */
export interface Bundle {
  queues: Queue[];
  routines: Routine[];
  /** Named exclusion calendars; each routine naming one holds a copy (with its `name`) after parsing. */
  calendars?: Record<string, Calendar>;
}

/** Bundle-level named calendars, at most {@link MAX_CALENDARS}. */
const calendarsSchema = z.record(nameSchema, calendarSchema).superRefine((c, ctx) => {
  const n = Object.keys(c).length;
  if (n > MAX_CALENDARS)
    ctx.addIssue({ code: 'custom', message: `defines ${n} calendars; the limit is ${MAX_CALENDARS}` });
});

/**
 * The input with each routine's `exclude` names replaced by the bundle calendar they name (its
 * `name` kept), so a stored routine carries what it excludes. A name of no calendar stays a name
 * (the routine schema refuses it); a name of an invalid calendar gets an empty one (the calendar's
 * own problem is reported once, at `calendars.<name>`).
 */
function resolveCalendars(raw: unknown): unknown {
  const bundle = raw as Record<string, unknown> | null;
  const calendars = bundle?.['calendars'];
  const routines = bundle?.['routines'];
  if (!calendars || typeof calendars !== 'object' || !Array.isArray(routines)) return raw;
  const defined = calendars as Record<string, unknown>;
  const resolve = (entry: unknown): unknown => {
    if (typeof entry !== 'string' || !Object.hasOwn(defined, entry)) return entry;
    const parsed = calendarSchema.safeParse(defined[entry]);
    return parsed.success ? { ...parsed.data, name: entry } : { name: entry, dates: [] };
  };
  return {
    ...bundle,
    routines: routines.map((r: unknown) => {
      const exclude = (r as Record<string, unknown> | null)?.['exclude'];
      return Array.isArray(exclude) ? { ...(r as object), exclude: exclude.map(resolve) } : r;
    }),
  };
}

/** One problem in a bundle: where (`routines[nightly-backup].trigger.cron`) and what is wrong. */
export interface BundleIssue {
  path: string;
  message: string;
}

/** `errors` are the issues as one-line `path: message` strings, for logs and exceptions. */
export type ParseBundleResult = { ok: true; bundle: Bundle } | { ok: false; errors: string[]; issues: BundleIssue[] };

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

function renderMessage(issue: z.core.$ZodIssue, schema: z.ZodType, raw: unknown): string {
  if (issue.code !== 'unrecognized_keys') return issue.message;
  // The input picks a union's option (a trigger's `kind`), so nested typos get a hint too.
  const known = fieldsAt(schema, issue.path, raw);
  return issue.keys.map((key) => unknownFieldMessage(key, known)).join('; ');
}

function failed(issues: BundleIssue[]): ParseBundleResult {
  return { ok: false, errors: issues.map((i) => `${i.path}: ${i.message}`), issues };
}

function duplicates(names: readonly string[]): string[] {
  return [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
}

/** Whether a valid routine is over {@link MAX_ROUTINE_BYTES} as JSON (defaults in, payload out). */
function routineSizeProblem(routine: Routine): string | undefined {
  const { payload: _payload, ...rest } = routine;
  const bytes = jsonBytes(rest);
  if (bytes <= MAX_ROUTINE_BYTES) return undefined;
  return `the definition is ${bytes} bytes as JSON without its payload; the limit is ${bytesText(MAX_ROUTINE_BYTES)}`;
}

/** The names a bundle's checks across items read: queue names, and each routine's name and queues. */
interface Names {
  queues: string[];
  /** `conditionQueue`: the queue a `queue-depth` condition reads. */
  routines: { name: string; queue?: string; conditionQueue?: string }[];
}

/** The names of the input as it is, for the items whose name (and queue) are strings at all. */
function rawNames(raw: unknown): Names {
  const list = (section: string): Record<string, unknown>[] => {
    const items = (raw as Record<string, unknown> | null)?.[section];
    return Array.isArray(items) ? items.filter((i): i is Record<string, unknown> => !!i && typeof i === 'object') : [];
  };
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    queues: list('queues').flatMap((q) => str(q['name']) ?? []),
    routines: list('routines').flatMap((r) => {
      const name = str(r['name']);
      const cond = r['condition'] as Record<string, unknown> | null | undefined;
      const conditionQueue =
        cond && typeof cond === 'object' && cond['kind'] === 'queue-depth' ? str(cond['queue']) : undefined;
      return name === undefined ? [] : [{ name, queue: str(r['queue']), conditionQueue }];
    }),
  };
}

/**
 * What no single item shows: duplicate names and routines on (or whose `queue-depth` condition
 * reads) undefined queues. Run on the input as
 * it is when fields failed too, so one pass reports every problem (a misspelt field does not hide
 * an undefined queue); `reported` paths already have a problem and get no second one.
 */
function crossIssues(names: Names, resolved: ReturnType<typeof resolveValidationOptions>, reported: Set<string>) {
  const issues: BundleIssue[] = [];
  for (const name of duplicates(names.queues)) {
    issues.push({ path: `queues[${name}].name`, message: 'defined more than once; queue names must be unique' });
  }
  for (const name of duplicates(names.routines.map((r) => r.name))) {
    issues.push({ path: `routines[${name}].name`, message: 'defined more than once; routine names must be unique' });
  }
  if (resolved.checkQueueRefs) {
    // A queue whose own name is wrong defines nothing (its problem is reported already).
    const defined = names.queues.filter((q) => q !== '' && !reported.has(`queues[${q}].name`));
    const known = new Set([...defined, ...resolved.knownQueues]);
    const list = () => [...known].sort().join(', ') || '(none)';
    for (const r of names.routines) {
      for (const [path, queue] of [
        [`routines[${r.name}].queue`, r.queue],
        [`routines[${r.name}].condition.queue`, r.conditionQueue],
      ] as const) {
        if (queue === undefined || known.has(queue) || reported.has(path)) continue;
        issues.push({ path, message: `queue "${queue}" is not defined; defined queues: ${list()}` });
      }
    }
  }
  return issues;
}

function buildBundleSchema(minFireIntervalMs: number) {
  return z.strictObject({
    queues: z.array(queueSchema).default([]),
    routines: z.array(routineSchema({ minFireIntervalMs })).default([]),
    calendars: calendarsSchema.optional(),
  });
}

/**
 * The bundle schema for a fire-rate floor, built once: zod takes about a millisecond to build it,
 * which each API call and client call validating one routine paid again. A schema is immutable, so
 * sharing it changes no answer. Floors come from configuration; past a few the memo starts over.
 */
const bundleSchemas = new Map<number, ReturnType<typeof buildBundleSchema>>();
function bundleSchema(minFireIntervalMs: number): ReturnType<typeof buildBundleSchema> {
  let schema = bundleSchemas.get(minFireIntervalMs);
  if (!schema) {
    if (bundleSchemas.size >= 16) bundleSchemas.clear();
    schema = buildBundleSchema(minFireIntervalMs);
    bundleSchemas.set(minFireIntervalMs, schema);
  }
  return schema;
}

/**
 * Validate a bundle `{queues: [...], routines: [...]}` (either list may be omitted) and fill in defaults.
 * Never throws. Each error names the item and field and says what would be valid, e.g.
 * `routines[nightly-backup].trigger.cron: "61 * * * *" is not a valid cron expression (minute must be 0-59); e.g. "0 2 * * *"`.
 * Also checks each routine's size (`MAX_ROUTINE_BYTES`), that names are unique and that each
 * routine's queue is defined (bundle or `opts.knownQueues`). Every problem comes back at once: the
 * checks across items run on the input as it is when some field is wrong.
 */
export function parseBundle(raw: unknown, opts?: ValidationOptions): ParseBundleResult {
  const resolved = resolveValidationOptions(opts);
  const schema = bundleSchema(resolved.minFireIntervalMs);
  const result = schema.safeParse(resolveCalendars(raw) ?? {}, { error: droverIssueWords });
  if (!result.success) {
    const issues = result.error.issues.map((issue) => ({
      path: renderPath(raw, issue.path),
      message: renderMessage(issue, schema, raw),
    }));
    return failed([...issues, ...crossIssues(rawNames(raw), resolved, new Set(issues.map((i) => i.path)))]);
  }
  const bundle: Bundle = result.data;
  const issues: BundleIssue[] = [];
  for (const r of bundle.routines) {
    const message = routineSizeProblem(r);
    if (message) issues.push({ path: `routines[${r.name}]`, message });
    // One buffered run waits per routine; a selector's tick makes one run per chosen key.
    if (r.concurrencyPolicy === 'buffer-one' && r.selector) {
      const policies = CONCURRENCY_POLICIES.filter((p) => p !== 'buffer-one').join(', ');
      issues.push({
        path: `routines[${r.name}].concurrencyPolicy`,
        message: `"buffer-one" is not available to a selector routine (a tick may start several keyed runs); use one of ${policies}`,
      });
    }
    const jitter = jitterProblem(r.jitterMs, r);
    if (jitter) issues.push({ path: `routines[${r.name}].jitterMs`, message: jitter });
  }
  issues.push(
    ...crossIssues(
      {
        queues: bundle.queues.map((q) => q.name),
        routines: bundle.routines.map(({ name, queue, condition: c }) => ({
          name,
          queue,
          conditionQueue: typeof c === 'object' && c.kind === 'queue-depth' ? c.queue : undefined,
        })),
      },
      resolved,
      new Set(),
    ),
  );
  return issues.length > 0 ? failed(issues) : { ok: true, bundle };
}
