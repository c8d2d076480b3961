import { priorityValue, type Routine, type RunSource } from '@drover/core';
import type { NewRun } from '../runs/new-run';
import { pendingClaimTtlMs } from '../slots/slot-claim';
import { BUFFERED_HOLD_MS } from '../runs/buffered-runs';
import { tracksOpenRuns } from './open-runs';

/** What a run of a routine takes from its producer; everything else comes from the definition. */
export interface RoutineRunSpec {
  id: string;
  source: Exclude<RunSource, 'api'>;
  /** The slot (epoch ms), or the request time of a manual run. */
  scheduledFor: number;
  /** A jittered slot's planned start, when later than the slot (core's `plannedStart`). */
  startAt?: number;
  createdBy: string;
  /** Default: the routine's own payload. */
  payload?: unknown;
  /** A selector routine's candidate key: also written into the payload. */
  key?: string;
  /** For a slot of a routine with a `triggers` list: the trigger it is attributed to (its name, else its index). */
  trigger?: string;
  delayMs?: number;
  dedup?: NewRun['dedup'];
  armedVersion?: number;
  /** `buffer-one`: the active run this one waits for (it is held until the routine has no other active run). */
  bufferedBehind?: string;
}

/**
 * A new run of routine `def`: job type, queue, priority, attempts, timeout and backoff from the
 * definition, open-run tracking by {@link tracksOpenRuns}. The scheduler, a manual trigger and a
 * backfill all make their runs here, so a routine's runs look the same whoever made them.
 */
export function runOfRoutine(def: Routine, spec: RoutineRunSpec): NewRun {
  const base = spec.payload ?? def.payload;
  return {
    id: spec.id,
    routine: def.name,
    jobType: def.jobType,
    queue: def.queue,
    source: spec.source,
    scheduledFor: spec.scheduledFor,
    ...(spec.startAt !== undefined && { startAt: spec.startAt }),
    payload: spec.key === undefined ? base : { ...(base as object), key: spec.key },
    ...(spec.key !== undefined && { key: spec.key }),
    ...(spec.trigger !== undefined && { trigger: spec.trigger }),
    priority: priorityValue(def.priority),
    maxAttempts: def.maxAttempts,
    timeoutMs: def.timeoutMs,
    backoff: def.backoff,
    ...(def.approval !== undefined && { approval: def.approval }),
    createdBy: spec.createdBy,
    ...(spec.delayMs !== undefined && { delayMs: spec.delayMs }),
    ...(spec.dedup && { dedup: spec.dedup }),
    trackOpen: tracksOpenRuns(def),
    ...(spec.armedVersion !== undefined && { armedVersion: spec.armedVersion }),
    // Every run of a buffer-one routine, whoever made it, may free the routine's buffered run when it ends.
    ...(def.concurrencyPolicy === 'buffer-one' && { releasesBuffered: true }),
    ...(spec.bufferedBehind !== undefined && {
      bufferedBehind: spec.bufferedBehind,
      delayMs: BUFFERED_HOLD_MS,
    }),
  };
}

/**
 * The deduplication marker of a slot's run: on the slot's own id, living as long as a pending claim
 * of the slot may (see pendingClaimTtlMs), so a decision re-applied by another dispatcher — or a
 * backfill racing the scheduler — never runs a slot twice, even after retention removed the job.
 */
export function slotDedup(id: string, slot: number, now: number): NonNullable<NewRun['dedup']> {
  return { id, ttlMs: pendingClaimTtlMs(slot, now) };
}

/** The marker of a selector routine's override for `key`: one pending override per key, until it ends. */
export function overrideDedup(routine: string, key: string): NonNullable<NewRun['dedup']> {
  return { id: `override:${routine}:${key}` };
}
