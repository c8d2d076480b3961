import { startRedisServer, type RedisServerHandle } from '../redis-server';

declare global {
  var __DROVER_TEST_REDIS__: RedisServerHandle | undefined;
}

/**
 * Starts one real redis-server for the whole run. Tests isolate themselves with a unique key
 * prefix (see `uniquePrefix`), never with a mock. The URL reaches test workers through env.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.DROVER_TEST_REDIS_URL) return; // the caller brought its own server
  const server = await startRedisServer();
  globalThis.__DROVER_TEST_REDIS__ = server;
  process.env.DROVER_TEST_REDIS_URL = server.url;
}
