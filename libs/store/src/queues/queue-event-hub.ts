import { QueueEvents } from 'bullmq';
import type { RedisConnections } from '@drover/redis';
import type { BullQueues } from './bull-queues';

/** One BullMQ queue event: `jobId` is the run id (absent for queue-wide events such as `paused`). */
export interface QueueEvent {
  queue: string;
  event: string;
  jobId?: string;
  /** The event's own fields (`returnvalue`, `data` for progress, `delay` …). */
  args: Record<string, unknown>;
}

type Listener = (e: QueueEvent) => void;

/** The BullMQ events the API turns into run and queue events. */
const EVENTS = [
  'added',
  'waiting',
  'delayed',
  'active',
  'progress',
  'completed',
  'failed',
  'removed',
  'stalled',
  'paused',
  'resumed',
] as const;

interface Reader {
  ready: Promise<void>;
  events?: QueueEvents;
}

/**
 * BullMQ queue events of a process: one QueueEvents reader (XREAD BLOCK on the queue's event
 * stream) per queue, opened on first use and shared by everything that listens — the run waiter
 * behind `waitForRun`, the API's run and cluster event streams. An event is a nudge: listeners
 * re-read the run view when they need the truth.
 */
export class QueueEventHub {
  private readonly readers = new Map<string, Reader>();
  private readonly byJob = new Map<string, Set<Listener>>();
  private readonly everyEvent = new Set<Listener>();
  private closed = false;

  constructor(
    private readonly connections: RedisConnections,
    private readonly bull: BullQueues,
    /** Told about reader errors (reconnects) and listeners that throw; never fails a caller. */
    private readonly onError: (message: string) => void = () => undefined,
  ) {}

  /**
   * Starts reading `queue`'s events (once); resolves when the reader is in place, so any event
   * after this call reaches the listeners. Reading starts at the stream's tail at this moment.
   */
  watch(queue: string): Promise<void> {
    const existing = this.readers.get(queue);
    if (existing) return existing.ready;
    if (this.closed) return Promise.reject(new Error('the event hub is closed'));
    const reader: Reader = { ready: Promise.resolve() };
    reader.ready = this.open(queue, reader);
    // A reader that could not start is forgotten, so the next watch tries again.
    reader.ready.catch(() => this.readers.get(queue) === reader && this.readers.delete(queue));
    this.readers.set(queue, reader);
    return reader.ready;
  }

  /** Listens to the events of one run; returns the unsubscribe. */
  onJob(queue: string, jobId: string, listener: Listener): () => void {
    const key = `${queue}\n${jobId}`;
    let set = this.byJob.get(key);
    if (!set) this.byJob.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.byJob.get(key) === set) this.byJob.delete(key);
    };
  }

  /** Listens to every event of every watched queue; returns the unsubscribe. */
  onEvery(listener: Listener): () => void {
    this.everyEvent.add(listener);
    return () => this.everyEvent.delete(listener);
  }

  get watched(): string[] {
    return [...this.readers.keys()];
  }

  private async open(queue: string, reader: Reader): Promise<void> {
    const streamKey = this.bull.keys.bullEvents(queue);
    // Start right after the current tail ('$' would drop events landing before the first XREAD).
    const tail = (await this.connections.command.xrevrange(streamKey, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
    const events = new QueueEvents(this.bull.keys.bullQueueName(queue), {
      connection: this.connections.open('blocking', `events:${queue}`),
      prefix: this.bull.keys.bullPrefix,
      lastEventId: tail,
    });
    events.on('error', (err: Error) => this.onError(`queue ${queue}: ${err.message}`));
    for (const name of EVENTS) {
      events.on(name, (args: Record<string, unknown> | undefined) => this.dispatch(queue, name, args ?? {}));
    }
    reader.events = events;
    await events.waitUntilReady();
  }

  private dispatch(queue: string, event: string, args: Record<string, unknown>): void {
    const jobId = typeof args.jobId === 'string' ? args.jobId : undefined;
    const e: QueueEvent = { queue, event, args, ...(jobId !== undefined && { jobId }) };
    const listeners = [...this.everyEvent, ...(jobId ? (this.byJob.get(`${queue}\n${jobId}`) ?? []) : [])];
    for (const l of listeners) {
      try {
        l(e);
      } catch (err) {
        this.onError(`an event listener failed: ${(err as Error).message}`);
      }
    }
  }

  /** Stops every reader; later `watch` calls fail. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.readers.values()];
    this.readers.clear();
    await Promise.all(
      all.map(async (r) => {
        await r.ready.catch(() => undefined);
        await r.events?.close().catch(() => undefined);
      }),
    );
  }
}
