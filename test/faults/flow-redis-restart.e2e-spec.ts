import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DroverClient, DroverModule } from '@drover/client';
import { startHttpOracle, startRedisServer, waitFor, type HttpOracle, type RedisServerHandle } from '@drover/testing';
import { TestCluster } from '../support/test-cluster';

/** How long each child's request is held by the receiver: the crash comes while they are in flight. */
const CHILD_MS = 3_000;

/**
 * A flow across a crash of its Redis: a producer's `enqueueFlow` (a parent and eight children on two
 * queues) on a private redis-server with AOF, one worker process; redis-server is killed -9 while the
 * children's requests are in flight and restarted at once on the same data. Counted at the receiver:
 * every child arrives (at least once, as any run across a crash), the parent exactly once, and only
 * after every child's last delivery was answered.
 */
describe('a flow across a redis-server crash (kill -9, AOF)', () => {
  let oracle: HttpOracle;
  let redis: RedisServerHandle;
  let dir: string;
  let cluster: TestCluster;
  let producer: INestApplicationContext;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    dir = mkdtempSync(join(tmpdir(), 'drover-fault-flow-'));
    redis = await startRedisServer({ dir, appendOnly: true });
    const queue = { concurrency: 8, maxAttempts: 3, leaseMs: 2_000 };
    cluster = await TestCluster.withQueues(
      'flowfault',
      [
        { name: 'default', ...queue },
        { name: 'etl', ...queue },
      ],
      {
        REDIS_URL: redis.url,
      },
    );
    await cluster.startWorker('flow-fault-w1');
    @Module({ imports: [DroverModule.forRoot({ redis: redis.url, prefix: cluster.prefix, name: 'month-end' })] })
    class ProducerModule {}
    producer = await NestFactory.createApplicationContext(ProducerModule, { logger: false });
  }, 60_000);

  afterAll(async () => {
    await producer?.close();
    await cluster?.stopAll();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
    await oracle?.close();
  }, 30_000);

  it('runs the parent once, after every child answered, when Redis crashes mid-flow', async () => {
    const client = producer.get(DroverClient);
    const flow = await client.enqueueFlow({
      job: 'http.request',
      payload: { url: `${oracle.url}/top` },
      children: Array.from({ length: 8 }, (_, i) => ({
        job: 'http.request',
        payload: { url: `${oracle.url}/child/${i}?delayMs=${CHILD_MS}` },
        options: { queue: i % 2 ? 'etl' : 'default' },
      })),
    });
    await oracle.waitFor(
      'every child under way',
      (h) => h.filter((x) => x.path.startsWith('/child/')).length >= 8,
      15_000,
    );
    // The flow's own write is on disk by now (AOF fsyncs every second); the children's ends are not yet.
    await new Promise((r) => setTimeout(r, 1_200));
    await redis.kill('SIGKILL');
    redis = await startRedisServer({ port: redis.port, dir, appendOnly: true });

    await oracle.waitFor('the parent', (h) => h.some((x) => x.path === '/top'), 60_000);
    await waitFor('the parent to succeed', async () => (await cluster.run(flow.id))?.status === 'succeeded', {
      timeoutMs: 15_000,
    });
    await new Promise((r) => setTimeout(r, 1_000));

    const top = oracle.hits.filter((h) => h.path === '/top');
    const children = oracle.hits.filter((h) => h.path.startsWith('/child/'));
    expect(top).toHaveLength(1);
    expect(new Set(children.map((h) => h.path)).size).toBe(8);
    // After the last delivery of every child was answered (each answer took CHILD_MS).
    const lastAnswered = Math.max(...children.map((h) => h.receivedAt + CHILD_MS));
    expect(top[0]!.receivedAt).toBeGreaterThanOrEqual(lastAnswered - 50);
    const parent = await cluster.run(flow.id);
    expect(parent?.flow?.children?.map((c) => c.status)).toEqual(Array.from({ length: 8 }, () => 'succeeded'));
  }, 120_000);
});
