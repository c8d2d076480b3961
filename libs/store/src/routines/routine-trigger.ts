import { DroverError, RoutineNotFoundError } from '@drover/core';
import { DuplicateOverrideError } from '../errors/duplicate-override.error';
import type { RunStore } from '../runs/run.store';
import { newRunId } from '../run-maker/run-id';
import { overrideDedup, runOfRoutine } from '../run-maker/routine-run';
import type { RoutineStore } from './routine.store';

/** Thrown when a manual trigger names a routine that cannot run (archived), or a key it has no use for. */
export class RoutineNotTriggerableError extends DroverError {
  get code() {
    return 'routine-not-triggerable' as const;
  }

  constructor(
    readonly routine: string,
    readonly why: string,
  ) {
    super(`routine "${routine}" cannot be triggered: ${why}`);
    this.name = 'RoutineNotTriggerableError';
  }
}

/**
 * Thrown when a trigger's idempotency key is already bound to a run of another routine (or an
 * ad-hoc run): the same key must mean the same operation. Nothing is written.
 */
export class TriggerKeyConflictError extends DroverError {
  get code() {
    return 'trigger-key-conflict' as const;
  }

  constructor(
    readonly idempotencyKey: string,
    readonly runId: string,
    readonly boundTo: string | null,
    readonly routine: string,
  ) {
    super(
      `idempotency key ${JSON.stringify(idempotencyKey)} is bound to run ${runId} ` +
        `(${boundTo === null ? 'an ad-hoc run' : `routine "${boundTo}"`}), not to routine "${routine}"; ` +
        'use a key that names the operation',
    );
    this.name = 'TriggerKeyConflictError';
  }
}

/**
 * Runs a routine now, by hand: a run with source `manual` (served before scheduled work), its
 * slot the request time. Works for paused routines (an operator's explicit request) but not for
 * archived ones; it bypasses the schedule, the condition and the overlap policy — but the next
 * fires see its run like any other (a `forbid` routine holds off while it runs).
 *
 * With `key`, for a selector routine: an override — the run serves that candidate key (in its
 * payload), goes before the automatic candidates, and is refused (DuplicateOverrideError) while
 * another override for the key is still queued or running. A disabled candidate may be triggered so.
 *
 * With `idempotencyKey`: the run id is derived from the key, so repeating the call (even
 * concurrently) answers the same run and creates exactly one (BullMQ adds one job per id).
 */
export async function triggerRoutine(
  deps: { routines: RoutineStore; runs: RunStore },
  name: string,
  opts: { now: number; random: () => number; by?: string; payload?: unknown; key?: string; idempotencyKey?: string },
): Promise<{ id: string; created: boolean }> {
  const record = await deps.routines.get(name);
  if (!record) throw new RoutineNotFoundError(name);
  const def = record.def;
  if (def.status === 'archived') throw new RoutineNotTriggerableError(name, 'it is archived');
  const { key } = opts;
  if (key !== undefined && !def.selector) {
    throw new RoutineNotTriggerableError(name, 'a key names a candidate of a selector routine, and this is not one');
  }
  const idem = opts.idempotencyKey;
  const id =
    idem === undefined
      ? newRunId({ kind: 'manual', now: opts.now, random: opts.random })
      : newRunId({ kind: 'key', idempotencyKey: idem });
  const bound = async (): Promise<boolean> => {
    const existing = idem === undefined ? null : await deps.runs.get(id);
    if (!existing) return false;
    if (existing.routine !== def.name) throw new TriggerKeyConflictError(idem!, id, existing.routine, def.name);
    return true;
  };
  if (await bound()) return { id, created: false };
  const res = await deps.runs.enqueue(
    runOfRoutine(def, {
      id,
      source: 'manual',
      scheduledFor: opts.now,
      createdBy: opts.by ?? 'manual',
      ...(opts.payload !== undefined && { payload: opts.payload }),
      ...(key !== undefined && { key, dedup: overrideDedup(def.name, key) }),
    }),
  );
  // A concurrent call with the same idempotency key may have added the job first: same run.
  if (!res.created && !res.existing && (await bound())) return { id, created: false };
  if (key !== undefined && !res.created) throw new DuplicateOverrideError(name, key, res.existing);
  return { id, created: res.created };
}

/** Cancels a selector routine's overrides that have not started; answers their run ids. */
export async function clearOverrides(deps: { runs: RunStore }, name: string): Promise<string[]> {
  const open = await deps.runs.openRunsOfRoutine(name);
  const waiting = open.filter(
    (r) => r.source === 'manual' && r.key !== undefined && (r.status === 'queued' || r.status === 'scheduled'),
  );
  const cleared: string[] = [];
  for (const r of waiting) {
    if ((await deps.runs.cancel(r.id, 'override cleared')).outcome === 'canceled') cleared.push(r.id);
  }
  return cleared;
}
