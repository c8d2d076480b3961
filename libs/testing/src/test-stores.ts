import type { RedisTarget } from '@drover/config';
import { DroverKeys, RedisConnections, SystemClock, type Clock, type ReplicaWaitOptions } from '@drover/redis';
import { createStores, type Stores } from '@drover/store';
import { testRedisUrl, uniquePrefix } from './test-redis';

/**
 * Every store on the run's test Redis under a key prefix of its own (so tests never see each
 * other; or `prefix`, to share one with processes a test starts), through the same `createStores`
 * the apps use. `clock` defaults to the system clock; `redis` to the run's test server;
 * `wait` asks for replica acknowledgements (DROVER_REDIS_WAIT_REPLICAS).
 * `close()` releases the stores and the connections.
 */
export function testStores(
  label: string,
  opts: { clock?: Clock; prefix?: string; redis?: RedisTarget; wait?: ReplicaWaitOptions } = {},
): Stores & { close(): Promise<void> } {
  const target = opts.redis ?? { kind: 'url' as const, url: testRedisUrl(), tls: false };
  const connections = new RedisConnections(target, label, undefined, opts.wait);
  const keys = new DroverKeys(opts.prefix ?? uniquePrefix(label), false);
  const stores = createStores(connections, keys, opts.clock ?? new SystemClock());
  return {
    ...stores,
    async close() {
      await stores.close();
      await connections.closeAll();
    },
  };
}
