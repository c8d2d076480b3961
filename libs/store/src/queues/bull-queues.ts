import type { Queue } from 'bullmq';
import type { DroverKeys, RedisConnections } from '@drover/redis';
import { CompactQueue } from './compact-queue';

/**
 * One BullMQ `Queue` object per Drover queue in a process, on the shared command connection
 * (a Queue never blocks). Names and prefix always come from {@link DroverKeys}, so a queue's keys
 * share one hash tag on Redis Cluster. Jobs are stored without the copy of their id in their
 * options ({@link CompactQueue}).
 */
export class BullQueues {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly connections: RedisConnections,
    readonly keys: DroverKeys,
  ) {}

  get(queue: string): Queue {
    let q = this.queues.get(queue);
    if (!q) {
      q = new CompactQueue(this.keys.bullQueueName(queue), {
        connection: this.connections.command,
        prefix: this.keys.bullPrefix,
        // Drover sets every job option explicitly; nothing is inherited from queue defaults.
        defaultJobOptions: {},
      });
      // A Queue emits 'error' on connection trouble; the connection itself already logs it.
      q.on('error', () => undefined);
      this.queues.set(queue, q);
    }
    return q;
  }

  async closeAll(): Promise<void> {
    const all = [...this.queues.values()];
    this.queues.clear();
    await Promise.all(all.map((q) => q.close().catch(() => undefined)));
  }
}
