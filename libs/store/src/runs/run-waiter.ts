import { SETTLED_RUN_STATUSES } from '@drover/core';
import type { QueueEventHub } from '../queues/queue-event-hub';
import type { RunView } from './run-view';

/** The BullMQ events after which a run may have settled. */
const SETTLING = new Set(['completed', 'failed', 'removed']);

/**
 * Event-driven waits for runs to end, on the process's one event reader per queue
 * ({@link QueueEventHub}). An event about a run only makes its waiters re-read the run (the view
 * is the truth; the event is the nudge), so a lost or duplicated event cannot produce a wrong answer.
 */
export class RunWaiter {
  constructor(private readonly hub: QueueEventHub) {}

  /**
   * Resolves with the run once `read()` shows a status in {@link SETTLED_RUN_STATUSES} (or null
   * once it does not exist), or with the last view and `timedOut` after `timeoutMs`.
   */
  async wait(
    queue: string,
    id: string,
    read: () => Promise<RunView | null>,
    timeoutMs: number,
  ): Promise<{ run: RunView | null; timedOut: boolean }> {
    await this.hub.watch(queue);
    return new Promise((resolve, reject) => {
      let last: RunView | null = null;
      let done = false;
      let checking: Promise<void> | undefined;
      let again = false;
      const finish = (timedOut: boolean) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        unlisten();
        resolve({ run: last, timedOut });
      };
      const check = async (): Promise<void> => {
        do {
          again = false;
          last = await read();
          if (!last || SETTLED_RUN_STATUSES.includes(last.status)) return finish(false);
        } while (again && !done);
      };
      // Serialise re-reads: a nudge during a read schedules exactly one more.
      const nudge = () => {
        if (done) return;
        if (checking) {
          again = true;
          return;
        }
        checking = check()
          .catch((err: unknown) => {
            done = true;
            clearTimeout(timer);
            unlisten();
            reject(err as Error);
          })
          .finally(() => (checking = undefined));
      };
      const timer = setTimeout(() => finish(true), Math.max(0, timeoutMs));
      const unlisten = this.hub.onJob(queue, id, (e) => SETTLING.has(e.event) && nudge());
      // Registered before the first read: a transition after it is either seen by the read or nudges.
      nudge();
    });
  }
}
