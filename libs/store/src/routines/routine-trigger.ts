import { adHocRunId, priorityValue } from '@drover/core';
import type { RunStore } from '../runs/run.store';
import { RoutineNotFoundError, type RoutineStore } from './routine.store';

/** Thrown when a manual trigger names a routine that cannot run (archived). */
export class RoutineNotTriggerableError extends Error {
  constructor(
    readonly routine: string,
    readonly why: string,
  ) {
    super(`routine "${routine}" cannot be triggered: ${why}`);
    this.name = 'RoutineNotTriggerableError';
  }
}

/**
 * Runs a routine now, by hand: a run with source `manual` (served before scheduled work), its
 * slot the request time. Works for paused routines (an operator's explicit request) but not for
 * archived ones; it bypasses the schedule, the condition and the overlap policy.
 */
export async function triggerRoutine(
  deps: { routines: RoutineStore; runs: RunStore },
  name: string,
  opts: { now: number; random: () => number; by?: string; payload?: unknown },
): Promise<{ id: string }> {
  const record = await deps.routines.get(name);
  if (!record) throw new RoutineNotFoundError(name);
  const def = record.def;
  if (def.status === 'archived') throw new RoutineNotTriggerableError(name, 'it is archived');
  const id = adHocRunId(opts.now, opts.random, 'm');
  await deps.runs.enqueue({
    id,
    routine: def.name,
    jobType: def.jobType,
    queue: def.queue,
    source: 'manual',
    scheduledFor: opts.now,
    payload: opts.payload ?? def.payload,
    priority: priorityValue(def.priority),
    maxAttempts: def.maxAttempts,
    timeoutMs: def.timeoutMs,
    backoff: def.backoff,
    createdBy: opts.by ?? 'manual',
  });
  return { id };
}
