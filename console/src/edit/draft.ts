/** A routine definition being edited: plain JSON the api validates; the console only reads a few fields. */
export type Draft = Record<string, unknown>;

/** The fields a reader looks for first, in this order; the others follow as stored. */
const LEADING = ['name', 'jobType', 'queue', 'trigger', 'triggers', 'payload'];

/**
 * The definition with a stable key order: the leading fields first (as a policy file writes a
 * routine), then the rest in their own order. The api stores its fields in another order; both
 * sides of a diff go through this, so only what changed shows.
 */
export function ordered(d: Draft): Draft {
  const out: Draft = {};
  for (const k of LEADING) if (k in d) out[k] = d[k];
  for (const [k, v] of Object.entries(d)) if (!(k in out)) out[k] = v;
  return out;
}

/** The text the editor shows and the diff compares: two-space JSON, one field a line. */
export const draftText = (d: unknown) =>
  d === undefined
    ? ''
    : JSON.stringify(typeof d === 'object' && d && !Array.isArray(d) ? ordered(d as Draft) : d, null, 2);

/** Equal definitions, whatever the order of their keys (a map's key order means nothing to the api). */
export function sameDraft(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.length === kb.length && ka.every((k) => k in rb && sameDraft(ra[k], rb[k]));
}

/** The JSON text as a definition object, or why not (the parser's own words). */
export function parseDraft(text: string): { ok: true; draft: Draft } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `not valid JSON: ${(err as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: 'not a JSON object: a routine definition is {"name": …, "jobType": …, …}' };
  }
  return { ok: true, draft: value as Draft };
}

/** The draft with `key` set (or removed when `value` is undefined), keeping the other fields' order. */
export function withField(d: Draft, key: string, value: unknown): Draft {
  const out: Draft = { ...d };
  if (value === undefined) delete out[key];
  else out[key] = value;
  return out;
}

/** The trigger kinds the form edits; anything else (a list of triggers, a calendar) is the JSON tab's. */
export const FORM_TRIGGERS = ['cron', 'interval', 'manual'] as const;
export type FormTrigger = (typeof FORM_TRIGGERS)[number];

/** A new trigger of `kind`, keeping what the old one had that the new kind also takes. */
export function triggerOfKind(kind: FormTrigger, old: Record<string, unknown> = {}): Record<string, unknown> {
  if (kind === 'cron') return { kind, cron: old.cron ?? '0 * * * *', ...(old.tz !== undefined && { tz: old.tz }) };
  if (kind === 'interval') return { kind, everyMs: old.everyMs ?? 3_600_000 };
  return { kind };
}

/**
 * A field error of the api's validation as the editor names it: `body.routines[nightly].trigger.cron`
 * (the what-if's bundle, a routine labelled by name or index) and `body.trigger.cron` (a PUT) both
 * read `trigger.cron`.
 */
export function fieldName(path: string): string {
  return path.replace(/^body\.routines(\.\d+|\[[^\]]*\])\.?/, '').replace(/^body\.?/, '') || 'the definition';
}
