import { Redis } from 'ioredis';
import { startRedisServer, testStores, waitFor, type RedisServerHandle } from '@drover/testing';
import type { Stores } from '../create-stores';
import type { NewRun } from '../runs/new-run';
import type { SlotDecision } from './slot-decision';

const NOW = Date.now();
const fire: SlotDecision = { kind: 'fire', source: 'schedule', cancel: [], at: NOW };
const run = (id: string): NewRun => ({
  id,
  routine: null,
  jobType: 'noop',
  queue: 'q',
  source: 'api',
  scheduledFor: null,
  payload: { n: 1 },
});

/** How many WAIT commands the server has run (INFO commandstats). */
async function waitCalls(client: Redis): Promise<number> {
  const m = /cmdstat_wait:calls=(\d+)/.exec(await client.info('commandstats'));
  return m ? Number(m[1]) : 0;
}

/**
 * DROVER_REDIS_WAIT_REPLICAS against a real master and replica: a claim or an enqueue is answered
 * only once the replica has it (read from the replica right after), a stopped replica makes both
 * throw `redis-not-replicated`, and without the setting no WAIT is sent at all.
 */
describe('waiting for replicas (real master and replica redis-servers)', () => {
  let master: RedisServerHandle;
  let replica: RedisServerHandle;
  /** Waits long enough for a replica on a busy machine: what it is asked must be acknowledged. */
  let stores: Stores & { close(): Promise<void> };
  /** The same keys, waiting 300 ms: for a stopped replica, whose refusals should come soon. */
  let impatient: Stores & { close(): Promise<void> };
  let replicaClient: Redis;

  beforeAll(async () => {
    master = await startRedisServer();
    replica = await startRedisServer({ replicaOf: { host: '127.0.0.1', port: master.port } });
    stores = testStores('wait', {
      redis: { kind: 'url', url: master.url, tls: false },
      wait: { replicas: 1, timeoutMs: 5_000 },
    });
    impatient = testStores('wait-impatient', {
      redis: { kind: 'url', url: master.url, tls: false },
      prefix: stores.keys.prefix,
      wait: { replicas: 1, timeoutMs: 300 },
    });
    replicaClient = new Redis(replica.url);
    await waitFor(
      'the replica to be in sync',
      async () => /master_link_status:up/.test(await replicaClient.info('replication')),
      {
        timeoutMs: 10_000,
      },
    );
    await stores.registry.put([{ name: 'q' }]);
    await stores.connections.command.hset(stores.keys.routineState('r'), { since: NOW - 60_000, v: 1 });
  }, 30_000);

  afterAll(async () => {
    replicaClient?.disconnect();
    await impatient?.close();
    await stores?.close();
    await replica?.stop();
    await master?.stop();
  });

  it('answers a claim and an enqueue only once the replica has them, with one WAIT each', async () => {
    const before = await waitCalls(stores.connections.command as Redis);
    const outcome = await stores.claims.claim({ routine: 'r', slot: NOW, decision: fire, now: NOW });
    expect(outcome.kind).toBe('claimed');
    expect(await replicaClient.exists(stores.claims.key('r', NOW))).toBe(1);
    await stores.runs.enqueue(run('w-1'));
    expect(await replicaClient.exists(`${stores.keys.bullPrefix}:${stores.keys.bullQueueName('q')}:w-1`)).toBe(1);
    // A claim that is taken wrote nothing and waits for nothing.
    expect((await stores.claims.claim({ routine: 'r', slot: NOW, decision: fire, now: NOW })).kind).toBe('taken');
    expect((await waitCalls(stores.connections.command as Redis)) - before).toBe(2);
  });

  it('refuses a claim and an enqueue the replica did not acknowledge in time', async () => {
    process.kill(replica.pid, 'SIGSTOP');
    try {
      const claim = impatient.claims.claim({ routine: 'r', slot: NOW + 1_000, decision: fire, now: NOW });
      await expect(claim).rejects.toMatchObject({ code: 'redis-not-replicated', acknowledged: 0, wanted: 1 });
      await expect(impatient.runs.enqueue(run('w-2'))).rejects.toMatchObject({ code: 'redis-not-replicated' });
      // A keyed run (an idempotency key's) takes the one-script guarded add: it waits the same way.
      await expect(impatient.runs.enqueue({ ...run('w-k'), anyQueue: true })).rejects.toMatchObject({
        code: 'redis-not-replicated',
      });
      await expect(impatient.runs.enqueueMany([run('w-3'), run('w-4')])).rejects.toMatchObject({
        code: 'redis-not-replicated',
      });
    } finally {
      process.kill(replica.pid, 'SIGCONT');
    }
  });

  it('confirms a pending claim someone else made before it is completed: rewrites its expiry, then WAITs', async () => {
    const slot = NOW + 20_000;
    const now = Date.now();
    const other = testStores('wait-other', {
      redis: { kind: 'url', url: master.url, tls: false },
      prefix: stores.keys.prefix,
    });
    try {
      expect((await other.claims.claim({ routine: 'r', slot, decision: { ...fire, at: now }, now })).kind).toBe(
        'claimed',
      );
      const claim = await stores.claims.get('r', slot);
      const ttl = await stores.connections.command.pttl(stores.claims.key('r', slot));
      const before = await waitCalls(stores.connections.command as Redis);
      await stores.claims.confirm('r', slot, claim!);
      expect((await waitCalls(stores.connections.command as Redis)) - before).toBe(1);
      expect(await stores.connections.command.get(stores.claims.key('r', slot))).toBe(claim!.raw);
      expect(Math.abs((await stores.connections.command.pttl(stores.claims.key('r', slot))) - ttl)).toBeLessThan(2_000);
      process.kill(replica.pid, 'SIGSTOP');
      try {
        await expect(impatient.claims.confirm('r', slot, claim!)).rejects.toMatchObject({
          code: 'redis-not-replicated',
        });
      } finally {
        process.kill(replica.pid, 'SIGCONT');
      }
    } finally {
      await other.close();
    }
  });

  it('sends no WAIT at all without replicas to wait for', async () => {
    const plain = testStores('nowait', { redis: { kind: 'url', url: master.url, tls: false } });
    try {
      await plain.registry.put([{ name: 'q' }]);
      await plain.connections.command.hset(plain.keys.routineState('r'), { since: NOW - 60_000, v: 1 });
      const before = await waitCalls(plain.connections.command as Redis);
      expect((await plain.claims.claim({ routine: 'r', slot: NOW, decision: fire, now: NOW })).kind).toBe('claimed');
      await plain.runs.enqueue(run('n-1'));
      await plain.runs.enqueueMany([run('n-2'), run('n-3')]);
      expect(await waitCalls(plain.connections.command as Redis)).toBe(before);
    } finally {
      await plain.close();
    }
  });
});
