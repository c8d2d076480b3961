import type { FlowChildOutcome } from '@drover/store';
import type { ChildRun } from './flow-children';
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

/**
 * The second argument of every handler. `C` is the state the handler checkpoints (see
 * {@link JobContext.checkpoint}); a handler that does not checkpoint leaves it out.
 */
export interface JobContext<C = unknown> {
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
  /**
   * Records `state` as the point this run may resume from, replacing the last one: plain JSON, at
   * most 64 KiB (else `CheckpointNotJsonError` / `CheckpointTooLargeError`, nothing stored). Await
   * it: once it resolves, an attempt that follows — a retry, a run reclaimed after its worker died,
   * a run handed back by a shutdown — starts with it as {@link lastCheckpoint}. An attempt that no
   * longer holds the run (its lease expired) is refused: it rejects with `LeaseLostError` and the
   * attempt's signal aborts. One Redis write per call; checkpoint every N items, not every item.
   */
  checkpoint(state: C): Promise<void>;
  /**
   * The state of the run's last checkpoint: an earlier attempt's at the start of this one, then
   * this attempt's own once it records one. Undefined for a run that never checkpointed (and for
   * a replay: a replay is a new run that starts fresh).
   */
  readonly lastCheckpoint: C | undefined;
  /**
   * How this run's children ended, for the parent of a flow (`enqueueFlow`, `POST /flows`), in the
   * order they were given: each `succeeded` (with its `result`), `canceled` (with its `reason`) or
   * `parked` (with its `error`: only a child whose failure the flow ignores; any other parks the parent
   * before it runs). A parent runs once every child finished, so none is pending. `[]` for a run
   * without children; one Redis round trip per call.
   */
  children(): Promise<FlowChild[]>;
  /**
   * Adds child runs to this running run (each may have children of its own), written together,
   * and answers their ids. Follow with {@link waitForChildren} to continue once they finished: the
   * flow's rules hold for them (a parked child parks this run unless `onFailure: 'ignore'`).
   */
  addChildren(children: ChildRun[]): Promise<string[]>;
  /**
   * Ends this attempt until every child finished, by throwing `WaitingForChildrenError` (let it
   * through): the handler then starts again from the top, as the same attempt, and reads how they
   * ended with {@link children}. Record where it was with {@link checkpoint} first, to know it is
   * continuing. Resolves at once when every child has finished already (or there is none).
   */
  waitForChildren(): Promise<void>;
}

/** How a child of a flow ended, as its parent reads it (see {@link JobContext.children}). */
export type FlowChild = FlowChildOutcome;

/** A handler class: `@JobHandler('x') class X implements JobHandlerInterface<P, R> { handle(...) }`. */
export interface JobHandlerInterface<P = unknown, R = unknown, C = unknown> {
  handle(payload: P, ctx: JobContext<C>): Promise<R> | R;
}
