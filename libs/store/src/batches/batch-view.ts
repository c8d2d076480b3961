import {
  BATCH_CALLBACKS,
  batchProgress,
  DEFAULT_BATCH_JOB_TYPES,
  type BatchCallbackOn,
  type BatchCallbacks,
  type BatchProgress,
} from '@drover/core';
import { newRunId } from '../run-maker/run-id';

/** One callback of a batch as the faces show it: what it runs, and its run once it fired. */
export interface BatchCallbackView {
  on: BatchCallbackOn;
  queue: string;
  jobType: string;
  /** The callback's run, once the batch completed and this callback was due (null: not (yet) enqueued). */
  runId: string | null;
}

/** A batch as every face shows it: its progress, its callbacks and when it was made and completed. */
export interface BatchView extends BatchProgress {
  id: string;
  createdAt: number;
  createdBy: string | null;
  completedAt: number | null;
  /** When its callbacks were enqueued (null while open, or complete and not yet recorded). */
  firedAt: number | null;
  callbacks: BatchCallbackView[];
}

const KEY_OF: Record<BatchCallbackOn, keyof BatchCallbacks> = { complete: 'onComplete', success: 'onSuccess' };

/** The view of a batch record (HGETALL), or null for none. */
export function batchViewOf(id: string, h: Record<string, string>, defaultQueue: string): BatchView | null {
  if (h.total === undefined) return null;
  const num = (k: string) => Number(h[k] ?? 0);
  const callbacks = JSON.parse(h.callbacks ?? '{}') as BatchCallbacks;
  const progress = batchProgress({
    total: num('total'),
    succeeded: num('succeeded'),
    parked: num('parked'),
    canceled: num('canceled'),
  });
  const firedAt = h.fired === undefined ? null : Number(h.fired);
  const fired = new Set(h.firedOn ? h.firedOn.split(',') : []);
  return {
    id,
    ...progress,
    createdAt: num('createdAt'),
    createdBy: h.createdBy || null,
    completedAt: h.completedAt === undefined ? null : Number(h.completedAt),
    firedAt,
    callbacks: BATCH_CALLBACKS.flatMap((on) => {
      const cb = callbacks[KEY_OF[on]];
      if (!cb) return [];
      return [
        {
          on,
          queue: cb.queue ?? defaultQueue,
          jobType: cb.jobType ?? DEFAULT_BATCH_JOB_TYPES[on],
          runId: fired.has(on) ? newRunId({ kind: 'batch-callback', batch: id, on }) : null,
        },
      ];
    }),
  };
}
