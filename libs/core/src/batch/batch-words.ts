// Imports nothing (served to the CLI and console by `../words`).

/** How a run of a batch settled: counted once per run (a retried attempt is not settled). */
export const BATCH_OUTCOMES = ['succeeded', 'parked', 'canceled'] as const;
export type BatchOutcome = (typeof BATCH_OUTCOMES)[number];

/** A batch is `open` until every run settled, then `complete`. */
export const BATCH_STATUSES = ['open', 'complete'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

/** The callbacks a batch may have: `complete` always fires once every run settled, `success` only if all succeeded. */
export const BATCH_CALLBACKS = ['complete', 'success'] as const;
export type BatchCallbackOn = (typeof BATCH_CALLBACKS)[number];
