import type { BatchCallback } from '@drover/core';
import type { BatchView } from '@drover/store';

/** The callbacks of {@link DroverClient.enqueueBatch}: each a run enqueued once when the batch settles. */
export interface BatchOptions {
  /** Enqueued once every run settled (succeeded, parked or canceled). */
  onComplete?: BatchCallback;
  /** Enqueued once every run succeeded (never when one was parked or canceled). */
  onSuccess?: BatchCallback;
}

/** A batch: progress (settled of total, how many parked/canceled) and its callbacks. */
export type DroverBatch = BatchView;
