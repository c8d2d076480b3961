import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** The URL of the run's private redis-server (started by the jest global setup). */
export function testRedisUrl(): string {
  const url = process.env.DROVER_TEST_REDIS_URL;
  if (!url)
    throw new Error('DROVER_TEST_REDIS_URL is unset: run tests through jest (its globalSetup starts redis-server)');
  return url;
}

/** A key prefix no other test uses, so tests share one server without seeing each other. */
export function uniquePrefix(label = 't'): string {
  return `${label.replace(/[^a-z0-9]/gi, '').slice(0, 16) || 't'}-${randomBytes(4).toString('hex')}`;
}

/** A plain ioredis client on the test server; the caller closes it. */
export function testRedisClient(): Redis {
  return new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
}
