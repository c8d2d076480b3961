import { QueueEvents } from 'bullmq';
import type { RedisConnections } from '@drover/redis';
import type { BullQueues } from '../queues/bull-queues';
import { SETTLED_RUN_STATUSES } from '@drover/core';
import type { RunView } from './run-view';

interface Listening {
  events: QueueEvents;
  ready: Promise<void>;
  waiters: Map<string, Set<() => void>>;
}

/**
 * Event-driven waits for runs to end: one BullMQ QueueEvents reader (XREAD BLOCK on the queue's
 * event stream) per queue per process, shared by every waiter. An event about a run only makes
 * its waiters re-read the run (the view is the truth; the event is the nudge), so a lost or
 * duplicated event cannot produce a wrong answer.
 */
export class RunWaiter {
  private readonly byQueue = new Map<string, Listening>();
  private closed = false;

  constructor(
    private readonly connections: RedisConnections,
    private readonly bull: BullQueues,
  ) {}

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
    const listening = this.listen(queue);
    await listening.ready;
    return new Promise((resolve, reject) => {
      let last: RunView | null = null;
      let done = false;
      let checking: Promise<void> | undefined;
      let again = false;
      const finish = (timedOut: boolean) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        const set = listening.waiters.get(id);
        set?.delete(nudge);
        if (set?.size === 0) listening.waiters.delete(id);
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
            reject(err as Error);
          })
          .finally(() => (checking = undefined));
      };
      const timer = setTimeout(() => finish(true), Math.max(0, timeoutMs));
      let set = listening.waiters.get(id);
      if (!set) listening.waiters.set(id, (set = new Set()));
      set.add(nudge);
      // Registered before the first read: a transition after it is either seen by the read or nudges.
      nudge();
    });
  }

  private listen(queue: string): Listening {
    const existing = this.byQueue.get(queue);
    if (existing) return existing;
    if (this.closed) throw new Error('RunWaiter is closed');
    const waiters = new Map<string, Set<() => void>>();
    const streamKey = this.bull.jobKey(queue, 'events');
    const connection = this.connections.open('blocking', `events:${queue}`);
    const listening: Listening = { waiters, events: undefined as unknown as QueueEvents, ready: Promise.resolve() };
    listening.ready = (async () => {
      // Start reading right after the stream's current tail ('$' would drop events that land
      // between this call and the reader's first XREAD).
      const tail = (await this.connections.command.xrevrange(streamKey, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
      const events = new QueueEvents(this.bull.keys.bullQueueName(queue), {
        connection,
        prefix: this.bull.keys.bullPrefix,
        lastEventId: tail,
      });
      events.on('error', () => undefined);
      const poke = ({ jobId }: { jobId: string }) => waiters.get(jobId)?.forEach((n) => n());
      events.on('completed', poke);
      events.on('failed', poke);
      events.on('removed', poke);
      listening.events = events;
      await events.waitUntilReady();
    })();
    // A reader that could not start is forgotten, so the next wait tries again.
    listening.ready.catch(() => this.byQueue.get(queue) === listening && this.byQueue.delete(queue));
    this.byQueue.set(queue, listening);
    return listening;
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.byQueue.values()];
    this.byQueue.clear();
    await Promise.all(
      all.map(async (l) => {
        await l.ready.catch(() => undefined);
        await l.events?.close().catch(() => undefined);
      }),
    );
  }
}
