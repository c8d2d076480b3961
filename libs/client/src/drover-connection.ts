import { DroverKeys, RedisConnections } from '@drover/redis';
import { BullQueues, QueueRegistry, RoutineStore, RunStore } from '@drover/store';
import type { ResolvedDroverOptions } from './resolve-options';

/**
 * The stores a producer needs, on one set of Redis connections: the command connection is the
 * caller's client when one was given (never closed here), and every connection opened here is
 * closed by {@link close}.
 */
export class DroverConnection {
  readonly connections: RedisConnections;
  readonly keys: DroverKeys;
  readonly bull: BullQueues;
  readonly registry: QueueRegistry;
  readonly runs: RunStore;
  readonly routines: RoutineStore;
  private closing?: Promise<void>;

  constructor(options: Pick<ResolvedDroverOptions, 'redis' | 'prefix' | 'name'>) {
    this.connections =
      options.redis.kind === 'client'
        ? RedisConnections.borrowing(options.redis.client, options.name)
        : new RedisConnections(options.redis, options.name);
    this.keys = new DroverKeys(options.prefix, this.connections.isCluster);
    this.bull = new BullQueues(this.connections, this.keys);
    this.registry = new QueueRegistry(this.connections.command, this.keys, this.bull);
    this.runs = new RunStore(this.connections, this.keys, this.registry, { bull: this.bull });
    this.routines = new RoutineStore(this.connections.command, this.keys);
  }

  /** Stops the run waiters, the BullMQ queue objects, then the connections Drover opened. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.runs.close();
      await this.bull.closeAll();
      await this.connections.closeAll();
    })();
    return this.closing;
  }
}
