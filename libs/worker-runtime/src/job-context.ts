import type { Logger } from 'pino';
import type { RunSource } from '@drover/core';

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
  /** A logger bound to the run (run id, routine, attempt). */
  readonly log: Logger;
  /** Records progress (a number or small JSON object) on the run; visible in the run view. */
  progress(value: number | object): Promise<void>;
}

/** A handler class: `@JobHandler('x') class X implements JobHandlerInterface<P, R> { handle(...) }`. */
export interface JobHandlerInterface<P = unknown, R = unknown> {
  handle(payload: P, ctx: JobContext): Promise<R> | R;
}
