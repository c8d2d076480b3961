import type { Backoff, RunSource, RunStatus } from '@drover/core';

/** A run to create in its work queue; the id is deterministic per slot, so a repeat is a no-op. */
export interface NewRunRequest {
  id: string;
  routine: string | null;
  jobType: string;
  queue: string;
  source: RunSource;
  scheduledFor: number | null;
  payload: unknown;
  /** Core's numeric priority (higher first); manual sources are served first regardless. */
  priority?: number;
  delayMs?: number;
  maxAttempts?: number;
  createdBy?: string;
  /** A routine's own overrides of its queue's policy. */
  timeoutMs?: number;
  backoff?: Backoff;
}

export interface SkippedRunRequest {
  id: string;
  routine: string;
  jobType: string;
  queue: string;
  source: RunSource;
  scheduledFor: number | null;
  reason: string;
}

/**
 * The part of the run store the scheduler writes through (spec §4 runs). A port, so the
 * dispatcher's decisions can be tested against a real store or an in-memory one alike.
 */
export interface RunSink {
  enqueue(run: NewRunRequest): Promise<{ id: string; created: boolean }>;
  recordSkipped(run: SkippedRunRequest): Promise<unknown>;
  openRunsOfRoutine(routine: string): Promise<{ id: string; status: RunStatus }[]>;
  cancel(id: string, reason: string): Promise<unknown>;
  get(id: string): Promise<unknown>;
}

export const RUN_SINK = Symbol('drover.run-sink');
