import { ClusterClock, DroverKeys, RedisConnections } from '@drover/redis';
import { createStores, type Stores } from '@drover/store';
import type { ResolvedDroverOptions } from './resolve-options';

/**
 * The stores a producer needs, on one set of Redis connections, timed by the cluster clock (Redis
 * TIME, as every Drover process): the command connection is the caller's client when one was given
 * (never closed here), and every connection opened here is closed by {@link close}.
 */
export class DroverConnection {
  readonly connections: RedisConnections;
  readonly keys: DroverKeys;
  readonly clock: ClusterClock;
  private readonly stores: Stores;
  private closing?: Promise<void>;

  constructor(
    options: Pick<ResolvedDroverOptions, 'redis' | 'prefix' | 'name'> &
      Partial<Pick<ResolvedDroverOptions, 'waitReplicas'>>,
  ) {
    this.connections =
      options.redis.kind === 'client'
        ? RedisConnections.borrowing(options.redis.client, options.name, undefined, options.waitReplicas)
        : new RedisConnections(options.redis, options.name, undefined, options.waitReplicas);
    this.keys = new DroverKeys(options.prefix, this.connections.isCluster);
    this.clock = new ClusterClock(this.connections);
    this.clock.start();
    this.stores = createStores(this.connections, this.keys, this.clock);
  }

  get bull() {
    return this.stores.bull;
  }

  get registry() {
    return this.stores.registry;
  }

  get runs() {
    return this.stores.runs;
  }

  get routines() {
    return this.stores.routines;
  }

  /** Stops the clock, the run waiters, the BullMQ queue objects, then the connections Drover opened. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.clock.stop();
      await this.stores.close();
      await this.connections.closeAll();
    })();
    return this.closing;
  }
}
