// The words of a run's life. Imports nothing (served to the CLI and console by `../words`).

export const RUN_STATUSES = [
  'scheduled',
  'awaiting-approval',
  'queued',
  'running',
  'succeeded',
  'failed',
  'canceled',
  'skipped',
  'parked',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * FINAL: statuses a run never leaves except by an operator's replay (of a `failed` run);
 * `applyTransition` ignores every other event on them. `parked` is not final: it waits for an
 * operator's replay or fail.
 */
export const FINAL_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'canceled', 'skipped'];
/**
 * SETTLED: final, or parked. Nothing more happens to the run unless an operator acts, so this is
 * where a caller waiting for or following a run stops, and what a run can no longer be canceled
 * from. The complement of {@link ACTIVE_RUN_STATUSES}.
 */
export const SETTLED_RUN_STATUSES: readonly RunStatus[] = [...FINAL_RUN_STATUSES, 'parked'];
/**
 * ACTIVE: still scheduled, awaiting approval, queued or running; what counts as "open" for overlap
 * (`forbid`/`replace`) and what a cancel reaches.
 */
export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ['scheduled', 'awaiting-approval', 'queued', 'running'];

/** What made a run. `bullmq`: a job a plain BullMQ producer added to a Drover queue (`queue.add`). */
export const RUN_SOURCES = ['schedule', 'catch-up', 'manual', 'api', 'replay', 'bullmq'] as const;
export type RunSource = (typeof RUN_SOURCES)[number];
