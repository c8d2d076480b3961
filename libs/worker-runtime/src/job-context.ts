import type { RunSource } from '@drover/core';
import type { RunLogger } from './run-logger';

export type { RunLogger } from './run-logger';

/** What a handler knows about the run it executes. Times are epoch ms. */
export interface RunInfo {
  id: string;
  routine: string | null;
  jobType: string;
  queue: string;
  source: RunSource;
  /** 1-based; counts an attempt lost to an expired lease, not one handed back by a shutdown. */
  attempt: number;
  maxAttempts: number;
  /** The routine's slot; the same on every attempt. Null for ad-hoc runs. */
  scheduledFor: number | null;
  /** When the run was enqueued; stable across attempts. */
  createdAt: number;
  createdBy?: string;
  replayOf?: string;
}

/** The second argument of every handler. */
export interface JobContext {
  readonly run: RunInfo;
  /**
   * Aborted on timeout, cancel (also by a `replace` overlap), lease loss and the end of the
   * shutdown grace period; `signal.reason` is the matching error. Pass it on to fetch, timers, etc.
   */
  readonly signal: AbortSignal;
  /**
   * `ctx.log('fetched page', { page: 3 })` writes a line to the run's own log, kept with the run
   * (the queue's `retention.logLines` newest lines, each at most 2 KB) and shown by the api, the
   * console and `drover runs logs`; it returns at once and never throws. Its pino methods
   * (`ctx.log.info(...)`) write to the worker's log instead, bound to the run (run id, routine, attempt).
   */
  readonly log: RunLogger;
  /** Records progress (a number or small JSON object) on the run; visible in the run view. */
  progress(value: number | object): Promise<void>;
}

/** A handler class: `@JobHandler('x') class X implements JobHandlerInterface<P, R> { handle(...) }`. */
export interface JobHandlerInterface<P = unknown, R = unknown> {
  handle(payload: P, ctx: JobContext): Promise<R> | R;
}
