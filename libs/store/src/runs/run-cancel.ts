import type { Retention } from '@drover/core';
import type { Clock, DroverKeys, RedisClient } from '@drover/redis';
import type { BatchStore } from '../batches/batch.store';
import type { BullQueues } from '../queues/bull-queues';
import { cancelChannel, encodeCancel } from './cancel-channel';
import { readJob } from './job-with-state';
import type { RunTombstones } from './run-tombstones';
import type { RunView } from './run-view';

/** Why the pending children of a canceled parent end `canceled`. */
export const PARENT_CANCELED_REASON = 'parent-canceled';

export type CancelOutcome = 'canceled' | 'cancel-requested' | 'already-final' | 'not-found';

export interface CancelResult {
  outcome: CancelOutcome;
  /** The run as it was after the request (for `already-final`: why nothing happened). */
  run: RunView | null;
}

export interface RunCancelerDeps {
  redis: RedisClient;
  keys: DroverKeys;
  bull: BullQueues;
  tombstones: RunTombstones;
  clock: Clock;
  batches: BatchStore;
  locate(id: string): Promise<string | undefined>;
  view(queue: string, id: string): Promise<RunView | undefined>;
  get(id: string, queue?: string): Promise<RunView | null>;
  retention(queue: string): Promise<Retention>;
  startBuffered(routine: string): Promise<string | undefined>;
  /** Frees a keyed run's place (KeyedRuns.settle under its queue's limit). */
  settleKeyed(queue: string, key: string, id: string): Promise<unknown>;
}

/** Ends a run on an operator's or a caller's word, wherever it stands. */
export class RunCanceler {
  constructor(private readonly deps: RunCancelerDeps) {}

  /**
   * Cancels a run. Queued, delayed or awaiting approval: removed before it starts, ends `canceled`. Running: the
   * holding worker is told over pub/sub, aborts the handler, and the run ends `canceled` (never
   * retried); the request is also written on the job so a restart of the run sees it.
   * Ended (or parked): nothing happens.
   */
  async cancel(id: string, reason: string): Promise<CancelResult> {
    const queue = await this.deps.locate(id);
    if (!queue) {
      const run = await this.deps.tombstones.get(id);
      return { outcome: run ? 'already-final' : 'not-found', run: run ?? null };
    }
    const q = this.deps.bull.get(queue);
    for (let round = 0; round < 3; round++) {
      const view = await this.deps.view(queue, id);
      if (!view) {
        // Removed meanwhile (by retention, a purge or another cancel).
        const run = await this.deps.tombstones.get(id);
        return { outcome: run ? 'already-final' : 'not-found', run: run ?? null };
      }
      const now = this.deps.clock.now();
      if (view.status === 'queued' || view.status === 'scheduled' || view.status === 'awaiting-approval') {
        const canceled: RunView = { ...view, status: 'canceled', reason, finishedAt: now, updatedAt: now };
        await this.deps.tombstones.put(canceled, await this.deps.retention(queue), now);
        // BullMQ refuses to remove a locked (just started) job: then it is running, go round again.
        // A parent goes first, alone (BullMQ would remove its children without a record): canceling
        // a child first could release the parent to a worker once its last pending child is gone.
        const children = view.flow?.children;
        if ((await q.remove(id, { removeChildren: !children })) === 1) {
          if (children) await this.cancelChildren(children);
          // A waiting run that never started frees its routine's buffered run (buffer-one) too; if
          // this ask fails, the leader's repair asks again.
          if (view.routine !== null) await this.deps.startBuffered(view.routine).catch(() => undefined);
          // A run of a batch that never started settles there as canceled (no worker will see it).
          if (view.batch !== undefined) await this.deps.batches.settle(view.batch, id, 'canceled');
          // A keyed run released but not started frees its place (a held one had none: nothing changes).
          if (view.concurrencyKey !== undefined) {
            await this.deps.settleKeyed(queue, view.concurrencyKey, id).catch(() => undefined);
          }
          return { outcome: 'canceled', run: canceled };
        }
        await this.deps.tombstones.delete(id);
        continue;
      }
      if (view.status === 'running') {
        const job = await readJob(q, id);
        if (job) await job.updateData({ ...job.data, cancel: { reason, at: now } });
        await this.deps.redis.publish(cancelChannel(this.deps.keys), encodeCancel({ id, queue, reason }));
        return { outcome: 'cancel-requested', run: view };
      }
      return { outcome: 'already-final', run: view };
    }
    return { outcome: 'already-final', run: await this.deps.get(id, queue) };
  }

  /** Cancels a canceled parent's children that have not ended (theirs in turn); one at a time, in order. */
  private async cancelChildren(children: readonly { id: string }[]): Promise<void> {
    for (const child of children) await this.cancel(child.id, PARENT_CANCELED_REASON);
  }
}
