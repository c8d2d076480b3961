import { startRedisServer, waitFor, type RedisServerHandle } from '@drover/testing';
import { TestCluster } from '../scheduler/cluster';
import { readyzStatus, tickPolicy } from './support/fault-oracle';

const GRACE_MS = 1_000;

/**
 * SIGTERM reaches every app while Redis is unreachable (a rollout during an outage). Nothing can be
 * handed back or released, but each app must still end its shutdown and exit 0 soon after the grace
 * period, not hang until the backstop (grace + 10 s, exit 1) or the orchestrator's SIGKILL.
 */
describe('shutting down while Redis is unreachable', () => {
  let redis: RedisServerHandle;
  let cluster: TestCluster;

  beforeAll(async () => {
    redis = await startRedisServer();
    cluster = new TestCluster(tickPolicy('http://127.0.0.1:9/unused'), {
      REDIS_URL: redis.url,
      DROVER_SHUTDOWN_GRACE_MS: String(GRACE_MS),
    });
  });

  afterAll(async () => {
    await cluster?.stopAll();
    await redis?.stop();
  });

  it('exits 0 from every app soon after the grace period', async () => {
    const apps = await Promise.all([
      cluster.start('scheduler', 'sched-1'),
      cluster.start('worker', 'worker-1'),
      cluster.start('standalone', 'standalone-1'),
      cluster.start('api', 'api-1'),
    ]);
    await redis.kill('SIGKILL');
    await waitFor(
      'every app to report not ready',
      async () => (await Promise.all(apps.map(readyzStatus))).every((s) => s === 503),
      {
        timeoutMs: 15_000,
        intervalMs: 100,
      },
    );
    const codes = await Promise.all(apps.map(async (a) => [a.name, await a.stop('SIGTERM')]));
    expect(codes).toEqual(apps.map((a) => [a.name, 0]));
  }, 60_000);
});
