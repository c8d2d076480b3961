import type { Run, RunError } from './run.schema';

/**
 * Events that move a run through `scheduled → queued → running → succeeded | failed | canceled`, plus
 * `skipped`, `parked`, retry (running → queued) and replay (parked|failed → queued). `at` is epoch ms.
 * Events about an attempt carry its 1-based `attempt` so stale ones can be recognised.
 */
export type RunEvent =
  | { type: 'enqueue'; at: number }
  | { type: 'start'; at: number; attempt: number; worker?: string }
  | { type: 'progress'; at: number; attempt: number; progress: unknown }
  | { type: 'succeed'; at: number; attempt: number; result?: unknown }
  | { type: 'retry'; at: number; attempt: number; error: RunError; nextAttemptAt: number }
  | { type: 'park'; at: number; attempt: number; reason: string; error?: RunError }
  | { type: 'fail'; at: number; attempt?: number; error: RunError }
  | { type: 'cancel'; at: number; reason?: string }
  | { type: 'skip'; at: number; reason: string }
  | { type: 'replay'; at: number };

/** Why {@link applyTransition} left a run unchanged. */
export type IgnoredBecause =
  | 'duplicate' // the run already reflects this event
  | 'stale' // about an older attempt, or arrived after the run moved on
  | 'out-of-order' // about a later attempt than the run has reached
  | 'final'; // the run is in a final status

export type TransitionResult = { run: Run; changed: true } | { run: Run; changed: false; ignored: IgnoredBecause };
