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
}

export function encodeState(state: Partial<RoutineState>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(state)) out[k] = v === undefined ? '' : String(v);
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
  };
}
