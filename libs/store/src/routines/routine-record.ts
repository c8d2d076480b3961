import {
  ROUTINE_DEFAULTS,
  type Archive,
  type Drift,
  type Origin,
  type Pause,
  type Routine,
  type RoutineRecord,
} from '@drover/core';
import { decodeArmedEntries, encodeArmedEntry, type ArmedEntry } from '../slots/slot-claim';

/**
 * Per-routine scheduling state, kept apart from the definition so that firing never rewrites
 * the definition (and an edit never races with a fire).
 */
export interface RoutineState {
  /** The definition's version (kept here too: workers compare it with the version a run was armed for). */
  version?: number;
  /** Newest slot claimed (the catch-up cursor; moved by the slot claim itself). */
  lastSlot?: number;
  /** When the cursor started (creation/resume): slots before it are never caught up. */
  since?: number;
  /** When the last pause that ended began (it ended at `since`): the slot ledger's window of slots slept through. */
  pausedFrom?: number;
  consecutiveFailures: number;
  nextAttemptAt?: number;
  disabledReason?: string;
  disabledAt?: number;
  lastLaunchError?: string;
  lastRunId?: string;
  lastOutcome?: string;
  lastFiredAt?: number;
  /** Runs created ahead of their slots (see the scheduler's arming), with the version they were armed for. */
  armed: ArmedEntry[];
  /** A selector routine's idle backoff (core's IdleState): ticks between looks, and since when. */
  idleMultiplier?: number;
  idleTick?: number;
  idleSince?: number;
}

/** The launcher's fields (core's LauncherState): what an operator's enable clears. */
export const LAUNCHER_FIELDS = [
  'consecutiveFailures',
  'nextAttemptAt',
  'disabledReason',
  'disabledAt',
  'lastLaunchError',
] as const satisfies readonly (keyof RoutineState)[];

/** State fields as stored; `armed` and `v` are written only by the slot scripts and the routine store. */
const FIELD: Partial<Record<keyof RoutineState, string>> = { version: 'v' };

export function encodeState(state: Partial<RoutineState>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(state)) {
    const field = FIELD[k as keyof RoutineState] ?? k;
    if (k === 'armed') out[field] = ((v ?? []) as ArmedEntry[]).map(encodeArmedEntry).join(',');
    else out[field] = v === undefined ? '' : String(v);
  }
  return out;
}

export function decodeState(raw: Record<string, string>): RoutineState {
  const num = (k: string) => (raw[k] !== undefined && raw[k] !== '' ? Number(raw[k]) : undefined);
  const str = (k: string) => (raw[k] !== undefined && raw[k] !== '' ? raw[k] : undefined);
  return {
    version: num('v'),
    lastSlot: num('lastSlot'),
    since: num('since'),
    pausedFrom: num('pausedFrom'),
    consecutiveFailures: num('consecutiveFailures') ?? 0,
    nextAttemptAt: num('nextAttemptAt'),
    disabledReason: str('disabledReason'),
    disabledAt: num('disabledAt'),
    lastLaunchError: str('lastLaunchError'),
    lastRunId: str('lastRunId'),
    lastOutcome: str('lastOutcome'),
    lastFiredAt: num('lastFiredAt'),
    armed: decodeArmedEntries(str('armed')),
    idleMultiplier: num('idleMultiplier'),
    idleTick: num('idleTick'),
    idleSince: num('idleSince'),
  };
}

/**
 * Fields whose value is the schema default are left out of the stored JSON: with 100k routines
 * every byte counts, and defaults are restored on read (core derives them from the schema).
 */
function isDefault(key: string, value: unknown): boolean {
  const def = (ROUTINE_DEFAULTS as Record<string, unknown>)[key];
  if (def === undefined) return false;
  if (typeof def === 'object') return JSON.stringify(def) === JSON.stringify(value);
  return def === value;
}

/** Compact JSON of a record: `d` is the definition without default-valued fields. */
export function encodeRecord(rec: RoutineRecord): string {
  const d = Object.fromEntries(Object.entries(rec.def).filter(([k, v]) => v !== undefined && !isDefault(k, v)));
  return JSON.stringify({
    d,
    o: rec.origin,
    c: rec.createdAt,
    u: rec.updatedAt,
    v: rec.version,
    p: rec.pause,
    a: rec.archive,
    // Only when set: most routines (file-made, never edited) pay nothing for them.
    r: rec.drift,
    cb: rec.createdBy,
    ub: rec.updatedBy,
  });
}

export function decodeRecord(raw: string): RoutineRecord {
  const x = JSON.parse(raw) as {
    d: Partial<Routine>;
    o: Origin;
    c: number;
    u: number;
    v: number;
    p?: Pause;
    a?: Archive;
    r?: Drift;
    cb?: string;
    ub?: string;
  };
  // Fresh objects per record: callers may mutate a payload they got back.
  const def = { ...ROUTINE_DEFAULTS, payload: {}, labels: {}, ...x.d } as Routine;
  return {
    def,
    origin: x.o,
    createdAt: x.c,
    updatedAt: x.u,
    version: x.v,
    ...(x.p && { pause: x.p }),
    ...(x.a && { archive: x.a }),
    ...(x.r && { drift: x.r }),
    ...(x.cb !== undefined && { createdBy: x.cb }),
    ...(x.ub !== undefined && { updatedBy: x.ub }),
  };
}
