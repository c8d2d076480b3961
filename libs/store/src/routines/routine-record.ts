import type { Routine } from '@drover/core';

/** Where a routine came from: the policy file (managed by apply) or the API (left alone by apply). */
export type RoutineOrigin = 'file' | 'api';

/** A routine as stored: its validated definition plus bookkeeping. Times are epoch ms. */
export interface RoutineRecord {
  def: Routine;
  origin: RoutineOrigin;
  createdAt: number;
  updatedAt: number;
  /** Bumped on every change of `def`; lets readers detect a concurrent edit. */
  version: number;
}

/**
 * Per-routine scheduling state, kept apart from the definition so that firing never rewrites
 * the definition (and an edit never races with a fire).
 */
export interface RoutineState {
  /** Newest slot fired or recorded as skipped (the catch-up cursor). */
  lastSlot?: number;
  /** When the cursor started (creation/resume): slots before it are never caught up. */
  since?: number;
  consecutiveFailures: number;
  nextAttemptAt?: number;
  disabledReason?: string;
  lastRunId?: string;
  lastOutcome?: string;
  lastFiredAt?: number;
  /** Slots whose runs were created ahead of time (see the scheduler's arming), and their queue. */
  armedSlots?: number[];
  armedQueue?: string;
}

export function encodeState(state: Partial<RoutineState>): Record<string, string> {
  const out: Record<string, string> = {};
  // Arrays become comma lists ("" for an empty one, which deletes the field).
  for (const [k, v] of Object.entries(state))
    out[k] = v === undefined ? '' : Array.isArray(v) ? v.join(',') : String(v);
  return out;
}

export function decodeState(raw: Record<string, string>): RoutineState {
  const num = (k: string) => (raw[k] !== undefined && raw[k] !== '' ? Number(raw[k]) : undefined);
  const str = (k: string) => (raw[k] !== undefined && raw[k] !== '' ? raw[k] : undefined);
  return {
    lastSlot: num('lastSlot'),
    since: num('since'),
    consecutiveFailures: num('consecutiveFailures') ?? 0,
    nextAttemptAt: num('nextAttemptAt'),
    disabledReason: str('disabledReason'),
    lastRunId: str('lastRunId'),
    lastOutcome: str('lastOutcome'),
    lastFiredAt: num('lastFiredAt'),
    armedSlots: str('armedSlots')?.split(',').map(Number),
    armedQueue: str('armedQueue'),
  };
}

/**
 * Fields whose value is the schema default are left out of the stored JSON: with 100k routines
 * every byte counts, and defaults are restored on read. Must match core's routine defaults.
 */
const ROUTINE_DEFAULTS: Partial<Routine> = {
  payload: {},
  priority: 'medium',
  concurrencyPolicy: 'allow',
  catchUpPolicy: 'skip',
  maxCatchUp: 100,
  maxLaunchFailures: 5,
  status: 'active',
  system: false,
  labels: {},
};

function isDefault(key: string, value: unknown): boolean {
  const def = (ROUTINE_DEFAULTS as Record<string, unknown>)[key];
  if (def === undefined) return false;
  if (typeof def === 'object') return JSON.stringify(def) === JSON.stringify(value);
  return def === value;
}

/** Compact JSON of a record: `d` is the definition without default-valued fields. */
export function encodeRecord(rec: RoutineRecord): string {
  const d = Object.fromEntries(Object.entries(rec.def).filter(([k, v]) => v !== undefined && !isDefault(k, v)));
  return JSON.stringify({ d, o: rec.origin, c: rec.createdAt, u: rec.updatedAt, v: rec.version });
}

export function decodeRecord(raw: string): RoutineRecord {
  const x = JSON.parse(raw) as { d: Partial<Routine>; o: RoutineOrigin; c: number; u: number; v: number };
  // Fresh objects per record: callers may mutate a payload they got back.
  const def = { ...ROUTINE_DEFAULTS, payload: {}, labels: {}, ...x.d } as Routine;
  return { def, origin: x.o, createdAt: x.c, updatedAt: x.u, version: x.v };
}
