import type { RunStatus } from '@drover/core';
import type { NewRun, SkippedRun } from '@drover/store';

/** A run to create in its work queue; the id is deterministic per slot, so a repeat is a no-op. */
export type NewRunRequest = NewRun;
export type SkippedRunRequest = SkippedRun;

/**
 * The part of the run store the scheduler writes through. A port, so the
 * dispatcher depends on these operations only; the run store implements it.
 */
export interface RunSink {
  enqueue(run: NewRunRequest): Promise<{ id: string; created: boolean }>;
  recordSkipped(run: SkippedRunRequest): Promise<{ id: string; created: boolean }>;
  openRunsOfRoutine(
    routine: string,
  ): Promise<{ id: string; status: RunStatus; key?: string; bufferedBehind?: string }[]>;
  /** Starts a `buffer-one` routine's buffered run if nothing else of it is active (idempotent). */
  startBuffered(routine: string): Promise<string | undefined>;
  listByRoutine(
    routine: string,
    opts: { limit?: number; status?: RunStatus },
  ): Promise<{ id: string; status: RunStatus; finishedAt?: number }[]>;
  cancel(id: string, reason: string): Promise<unknown>;
}

export const RUN_SINK = Symbol('drover.run-sink');
