import { bufferedToStart } from '@drover/core';
import type { BullQueues } from '../queues/bull-queues';
import type { RunView } from './run-view';

/**
 * How long a `buffer-one` run is held back when it is made: far longer than any run is active, so
 * BullMQ never releases it by itself; {@link BufferedRuns.startNext} promotes it when the active
 * run ends. A year keeps BullMQ's delayed score (due time × 4096) exact for a decade to come.
 */
export const BUFFERED_HOLD_MS = 365 * 24 * 3_600_000;

/**
 * Starts the buffered run of a `buffer-one` routine once no other run of it is active: the run was
 * added as a delayed BullMQ job (see {@link BUFFERED_HOLD_MS}) and BullMQ's own promote moves it to
 * the wait list, to the head (it was due long ago). Asked by whoever sees a run of the routine
 * end — the worker that settled it, a cancel, the dispatcher that just made the buffered run (the
 * active one may have ended meanwhile), the leader's repair — so the ask is idempotent: promote
 * moves only a job that is still delayed, and the run is chosen by core's `bufferedToStart` from
 * the routine's open runs as they are now.
 */
export class BufferedRuns {
  constructor(
    private readonly bull: BullQueues,
    private readonly openRuns: (routine: string) => Promise<RunView[]>,
  ) {}

  /** Promotes the routine's buffered run if nothing else of it is active; its id, or undefined when none was started. */
  async startNext(routine: string): Promise<string | undefined> {
    const next = bufferedToStart(await this.openRuns(routine));
    if (!next) return undefined;
    const job = await this.bull.get(next.queue).getJob(next.id);
    if (!job) return undefined;
    try {
      await job.promote();
      return next.id;
    } catch (err) {
      // Promoted (or canceled) by another ask in the meantime: nothing left to do.
      if ((await job.getState()) !== 'delayed') return undefined;
      throw err;
    }
  }
}
