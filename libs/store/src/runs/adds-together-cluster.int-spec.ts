import { DroverKeys, RedisConnections, SystemClock } from '@drover/redis';
import { startRedisCluster, uniquePrefix, type RedisClusterHandle } from '@drover/testing';
import { createStores, type Stores } from '../create-stores';
import { enqueueAdHoc } from '../run-maker/ad-hoc-enqueue';
import { adHocRun } from '../run-maker/ad-hoc-run';

/**
 * On Redis Cluster each queue's keys share one hash tag, so a queue's adds of one turn still go in
 * one script call, sent to the node that holds that queue.
 */
describe('adds of one turn on Redis Cluster (real redis-servers, real BullMQ)', () => {
  let cluster: RedisClusterHandle;
  let conns: RedisConnections | undefined;
  let stores: Stores | undefined;

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
  }, 60_000);
  afterAll(async () => {
    await stores?.close();
    await conns?.closeAll();
    await cluster?.stop();
  });

  it('adds every queue’s runs of one turn, in call order', async () => {
    const nodes = cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port }));
    conns = new RedisConnections({ kind: 'cluster', nodes }, 'adds-cluster');
    stores = createStores(conns, new DroverKeys(uniquePrefix('adds-cl'), true), new SystemClock());
    const p = stores;
    const queues = ['q-a', 'q-b', 'q-c', 'q-d'];
    await p.registry.put(queues.map((name) => ({ name })));
    await p.runs.policies.whenLive();
    const plain = (queue: string, n: number) =>
      adHocRun(
        { jobType: 'send', payload: { n }, queue, delayMs: 0, scheduledFor: null, priority: 0, createdBy: 't' },
        { now: Date.now(), random: Math.random, defaultQueue: 'q-a' },
      );
    // Each queue known first, so every call below takes the path a warm producer takes.
    for (const q of queues) await enqueueAdHoc(p.runs, { run: plain(q, -1) });
    const runs = Array.from({ length: 40 }, (_, i) => plain(queues[i % queues.length]!, i));
    const answers = await Promise.all(runs.map((run) => enqueueAdHoc(p.runs, { run })));
    expect(answers).toEqual(runs.map((r) => ({ ids: r.id })));
    for (const q of queues) {
      // Oldest first.
      const waiting = (await p.bull.get(q).getWaiting(0, -1)).map(
        (j) => (j.data as { payload: { n: number } }).payload.n,
      );
      expect(waiting).toEqual([-1, ...runs.filter((r) => r.queue === q).map((r) => (r.payload as { n: number }).n)]);
    }
  }, 30_000);
});
