import type { Queue } from '@drover/core';
import { ResilientSubscriber, type Clock, type RedisConnections } from '@drover/redis';
import type { BullQueues } from './bull-queues';
import type { QueueRegistry } from './queue-registry.store';

/** What enqueue needs to know about a queue. */
export interface QueueFacts {
  /** The queue's policy; undefined when no policy defines it. */
  def: Queue | undefined;
  /** Whether the queue serves its runs by BullMQ priority (see RunWriter.enqueueMany). */
  ranked: boolean;
}

/** How long a read is trusted while no change subscription is live (connecting, reconnecting). */
const UNSUBSCRIBED_TTL_MS = 2_000;

interface Entry<T> {
  value: T;
  at: number;
  epoch: number;
}

/**
 * The producer's memory of queue policies, of which queues exist and of which are ranked, so an
 * enqueue costs one round trip (BullMQ's add) instead of several. Entries are dropped when the
 * registry announces a change ({@link QueueRegistry.changesChannel}) or a queue becomes ranked
 * ({@link rankedChannel}); while that subscription is not live (before the first enqueue, during
 * a reconnect) a read is trusted for {@link UNSUBSCRIBED_TTL_MS} only, as before the cache existed.
 *
 * A producer learns of a change one publish later than Redis has it: a run enqueued in that
 * window into a queue that just became ranked is served first-in-first-out, like the runs that
 * were already waiting unranked when it did.
 */
export class QueuePolicyCache {
  private readonly facts = new Map<string, Entry<QueueFacts>>();
  private names?: Entry<string[]>;
  /** Bumped on every change message and every loss of the subscription: older entries are stale. */
  private epoch = 0;
  private subscriber?: ResilientSubscriber;
  private subscribing?: Promise<void>;
  private closed = false;

  constructor(
    private readonly connections: RedisConnections,
    private readonly registry: QueueRegistry,
    private readonly bull: BullQueues,
    private readonly clock: Clock,
  ) {}

  /** Where a producer that ranks a queue says so (its message is the queue name). */
  get rankedChannel(): string {
    return this.bull.keys.queuesRanked();
  }

  private rankedKey(queue: string): string {
    return this.bull.keys.queueRanked(queue);
  }

  private fresh<T>(e: Entry<T> | undefined): e is Entry<T> {
    if (!e || e.epoch !== this.epoch) return false;
    return !!this.subscriber?.isLive() || this.clock.now() - e.at < UNSUBSCRIBED_TTL_MS;
  }

  /** The queue's policy and ranked flag (read from Redis unless known). */
  async get(queue: string): Promise<QueueFacts> {
    this.subscribeOnce();
    const hit = this.facts.get(queue);
    if (this.fresh(hit)) return hit.value;
    const epoch = this.epoch;
    const [def, ranked] = await Promise.all([
      this.registry.get(queue),
      this.connections.command.get(this.rankedKey(queue)),
    ]);
    const value = { def, ranked: ranked === '1' };
    // A change announced while reading may not be in what was read: keep it only if none was.
    if (epoch === this.epoch) this.facts.set(queue, { value, at: this.clock.now(), epoch });
    return value;
  }

  /** The queue's facts if known and fresh, without waiting (the enqueue hot path); else undefined. */
  peek(queue: string): QueueFacts | undefined {
    this.subscribeOnce();
    const hit = this.facts.get(queue);
    return this.fresh(hit) ? hit.value : undefined;
  }

  /** The names of the defined queues if known and fresh, without waiting (the keyed enqueue hot path); else undefined. */
  peekNames(): readonly string[] | undefined {
    this.subscribeOnce();
    return this.fresh(this.names) ? this.names.value : undefined;
  }

  /** The names of the defined queues. */
  async queueNames(): Promise<string[]> {
    this.subscribeOnce();
    if (this.fresh(this.names)) return this.names.value;
    const epoch = this.epoch;
    const value = await this.connections.command.hkeys(this.registry.hashKey);
    if (epoch === this.epoch) this.names = { value, at: this.clock.now(), epoch };
    return value;
  }

  /**
   * Ranks a queue for good and tells every producer. This producer knows it at once: its own
   * message arrives on another connection, maybe after its next enqueue into the queue.
   */
  async markRanked(queue: string): Promise<void> {
    await this.connections.command.set(this.rankedKey(queue), '1');
    const hit = this.facts.get(queue);
    if (hit) hit.value = { ...hit.value, ranked: true };
    await this.connections.command.publish(this.rankedChannel, queue);
  }

  private invalidate(): void {
    this.epoch++;
    this.facts.clear();
    this.names = undefined;
  }

  private subscribeOnce(): void {
    if (this.subscribing || this.closed) return;
    // Messages published while the connection is down are lost: forget everything on a loss,
    // trust reads for a short time only until subscribed again, and forget again once it is
    // (what was read meanwhile may predate a change nobody heard of).
    this.subscribing = ResilientSubscriber.start({
      open: () => this.connections.open('blocking', 'policy-sub'),
      channels: [this.registry.changesChannel, this.rankedChannel],
      onMessage: () => this.invalidate(),
      onLost: () => this.invalidate(),
      onResync: () => this.invalidate(),
    }).then(
      async (sub) => {
        this.invalidate();
        if (this.closed) return sub.close();
        this.subscriber = sub;
      },
      () => undefined,
    );
  }

  /** Resolves once the change subscription is first live (tests wait for it before changing things). */
  async whenLive(): Promise<void> {
    this.subscribeOnce();
    await this.subscribing;
  }

  async close(): Promise<void> {
    this.closed = true;
    const sub = this.subscriber;
    this.subscriber = undefined;
    await sub?.close();
  }
}
