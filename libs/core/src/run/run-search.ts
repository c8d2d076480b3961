import { parseDuration, parseInstant } from '../human-time';

/**
 * Finding a run: the time window, the free-text search and the predicate a listing applies to
 * each run it reads. Pure: `now` is a parameter; the store reads the runs, this only decides.
 */

/**
 * Most runs one search request reads and matches. A search (or a time window) cannot use an index
 * to skip runs, so each page scans at most this many candidates (newest first) and says so when it
 * stops there: the caller then narrows the range or follows the page token.
 */
export const SEARCH_SCAN_LIMIT = 1000;

/** What `parseTimeBound` accepts, for error messages and help texts. */
export const TIME_BOUND_HINT =
  'a duration ago (30m, 2h, 7d), an ISO 8601 instant with its zone (2026-05-01T09:00:00Z), or today|tomorrow HH:MM (UTC)';

/**
 * A bound of a time window typed by a person → epoch ms, or undefined when it is none. A bare
 * duration means that long before `now` (`--since 2h`: the last two hours); an ISO 8601 instant
 * needs a zone (`Z` or an offset) when it has a time, so it reads the same everywhere; the other
 * forms people type elsewhere (`-30m`, `today 09:00`) read as they do there (see parseInstant).
 */
export function parseTimeBound(text: string, now: number): number | undefined {
  const t = text.trim();
  if (/^\d+(\.\d+)?(ms|s|m|h|d)/.test(t)) {
    const ms = parseDuration(t);
    return ms === undefined ? undefined : now - ms;
  }
  if (/^\d/.test(t)) {
    if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(t)) return undefined;
    const at = Date.parse(t);
    return Number.isFinite(at) ? at : undefined;
  }
  const iso = parseInstant(t, now);
  return iso === undefined ? undefined : Date.parse(iso);
}

/** A search: a payload field's value (`customer.id=42`), or text matched against run ids and errors. */
export type RunSearch = { kind: 'field'; path: readonly string[]; value: string } | { kind: 'text'; text: string };

const FIELD_PATH = /^[A-Za-z_$][\w$-]*(\.[\w$-]+)*$/;

/**
 * `path.to.field=value` searches the payload (the left side must be a field path); anything else
 * is text. Undefined for an empty search.
 */
export function parseRunSearch(text: string): RunSearch | undefined {
  const t = text.trim();
  if (!t) return undefined;
  const eq = t.indexOf('=');
  if (eq > 0 && FIELD_PATH.test(t.slice(0, eq).trim())) {
    return { kind: 'field', path: t.slice(0, eq).trim().split('.'), value: t.slice(eq + 1).trim() };
  }
  return { kind: 'text', text: t };
}

/** The parts of a run a search looks at. */
export interface SearchableRun {
  id: string;
  createdAt: number;
  payload?: unknown;
  error?: { message: string };
  errors?: readonly { message: string }[];
}

/** What a listing keeps beyond its indexed filters: a creation window and a search. */
export interface RunFilter {
  /** Created at or after (epoch ms). */
  since?: number;
  /** Created at or before (epoch ms). */
  until?: number;
  search?: RunSearch;
}

/** Whether a creation time is inside the window (bounds included). */
export function inTimeWindow(createdAt: number, f: Pick<RunFilter, 'since' | 'until'>): boolean {
  return (f.since === undefined || createdAt >= f.since) && (f.until === undefined || createdAt <= f.until);
}

/** A scalar as a search compares it (objects never equal a typed value). */
function scalarText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  return undefined;
}

/**
 * Whether the value at `path` in `payload` equals `value` as typed: a string exactly, a number,
 * boolean or null by its JSON text; an array matches when one of its elements does (`tags=vip`).
 * A path through an array element takes its index (`items.0.sku`).
 */
export function payloadFieldEquals(payload: unknown, path: readonly string[], value: string): boolean {
  let at: unknown = payload;
  for (const key of path) {
    if (at === null || typeof at !== 'object' || !Object.prototype.hasOwnProperty.call(at, key)) return false;
    at = (at as Record<string, unknown>)[key];
  }
  const values = Array.isArray(at) ? (at as unknown[]) : [at];
  return values.some((v) => scalarText(v) === value);
}

/** Text search: a run id starting with it, or an error message (the last or any attempt's) holding it; case-insensitive. */
function textMatches(run: SearchableRun, text: string): boolean {
  const needle = text.toLowerCase();
  if (run.id.toLowerCase().startsWith(needle)) return true;
  const messages = [run.error?.message, ...(run.errors ?? []).map((e) => e.message)];
  return messages.some((m) => m !== undefined && m.toLowerCase().includes(needle));
}

/** Whether a run passes the window and the search. */
export function runMatches(run: SearchableRun, f: RunFilter): boolean {
  if (!inTimeWindow(run.createdAt, f)) return false;
  if (!f.search) return true;
  return f.search.kind === 'field'
    ? payloadFieldEquals(run.payload, f.search.path, f.search.value)
    : textMatches(run, f.search.text);
}
