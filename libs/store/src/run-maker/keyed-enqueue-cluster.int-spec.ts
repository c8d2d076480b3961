import { DroverKeys, RedisConnections, SystemClock } from '@drover/redis';
import { startRedisCluster, uniquePrefix, type RedisClusterHandle } from '@drover/testing';
import { createStores, type Stores } from '../create-stores';
import { enqueueAdHoc } from './ad-hoc-enqueue';
import { adHocRun } from './ad-hoc-run';

const NOW = 1_767_225_600_000;
const request = (jobType: string, queue: string, idempotencyKey: string) =>
  adHocRun(
    { jobType, payload: {}, queue, delayMs: 0, scheduledFor: null, priority: 0, createdBy: 't', idempotencyKey },
    { now: NOW, random: Math.random, defaultQueue: 'q' },
  );

/**
 * On Redis Cluster a run's places are in different hash slots (each queue's keys under its own tag,
 * records under `{core}`), so no one script can look at all of them: a keyed enqueue looks first,
 * then adds. The guarantees are the same.
 */
describe('idempotent enqueue on Redis Cluster (real redis-servers, real BullMQ)', () => {
  let cluster: RedisClusterHandle;
  const opened: { stores: Stores; conns: RedisConnections }[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
  }, 60_000);
  afterAll(async () => {
    for (const { stores, conns } of opened) {
      await stores.close();
      await conns.closeAll();
    }
    await cluster?.stop();
  });

  const producer = (prefix: string): Stores => {
    const nodes = cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port }));
    const conns = new RedisConnections({ kind: 'cluster', nodes }, 'keyed-cluster');
    const stores = createStores(conns, new DroverKeys(prefix, true), new SystemClock());
    opened.push({ stores, conns });
    return stores;
  };
  const keyed = (p: Stores, jobType: string, queue: string, key: string) =>
    enqueueAdHoc(p.runs, { run: request(jobType, queue, key), key });

  it('makes one job per key among racing producers, keeps a canceled run, reports a key bound elsewhere', async () => {
    const prefix = uniquePrefix('keyed-cl');
    const [a, b] = [producer(prefix), producer(prefix)];
    expect(a.connections.isCluster).toBe(true);
    await a.registry.put([{ name: 'q' }, { name: 'other' }]);
    // Each producer knows its queues, as it would after its first enqueue: the path taken is the
    // one every later call takes.
    for (const p of [a, b]) {
      await p.runs.policies.whenLive();
      for (const q of ['q', 'other']) await keyed(p, 'warm', q, `warm-${q}-${Math.random()}`);
    }
    const keys = Array.from({ length: 10 }, (_, i) => `race-${i}`);
    const answers = await Promise.all(keys.flatMap((k) => [keyed(a, 'send', 'q', k), keyed(b, 'send', 'q', k)]));
    expect(answers).toEqual(
      keys.flatMap((k) => [{ ids: request('send', 'q', k).id }, { ids: request('send', 'q', k).id }]),
    );
    const waiting = (await a.bull.get('q').getWaiting())
      .filter((j) => j.name === 'send')
      .map((j) => j.id)
      .sort();
    expect(waiting).toEqual(keys.map((k) => request('send', 'q', k).id).sort());

    const id = request('send', 'q', 'race-0').id;
    expect((await a.runs.cancel(id)).outcome).toBe('canceled');
    expect(await keyed(b, 'send', 'q', 'race-0')).toEqual({ ids: id });
    expect((await b.runs.get(id))?.status).toBe('canceled');
    expect(await keyed(b, 'send', 'other', 'race-1')).toMatchObject({ conflict: { existing: { queue: 'q' } } });
    expect(await a.bull.get('other').getJob(request('send', 'other', 'race-1').id)).toBeUndefined();
  }, 30_000);
});
