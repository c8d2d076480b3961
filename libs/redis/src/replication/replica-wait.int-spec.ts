import { Redis } from 'ioredis';
import { startRedisServer, type RedisServerHandle } from '@drover/testing';
import { ReplicaWait } from './replica-wait';

async function waitCalls(client: Redis): Promise<number> {
  const m = /cmdstat_wait:calls=(\d+)/.exec(await client.info('commandstats'));
  return m ? Number(m[1]) : 0;
}

/** The WAIT helper on a private redis-server with no replica: what counts as unacknowledged, and the group commit. */
describe('ReplicaWait (real redis-server)', () => {
  let server: RedisServerHandle;
  let client: Redis;

  beforeAll(async () => {
    server = await startRedisServer();
    client = new Redis(server.url);
  });

  afterAll(async () => {
    client?.disconnect();
    await server?.stop();
  });

  it('counts a write as unacknowledged when fewer replicas than asked answer within the timeout', async () => {
    const wait = new ReplicaWait(client, { replicas: 1, timeoutMs: 50 });
    const ticket = wait.begin();
    await client.set('k', '1');
    await expect(wait.confirm(ticket, 'the write')).rejects.toMatchObject({
      code: 'redis-not-replicated',
      acknowledged: 0,
      message: expect.stringContaining('0 acknowledged within 50 ms'),
    });
  });

  it('counts a write as unacknowledged when the connection closed after it (a WAIT on a new connection waits for nothing)', async () => {
    const wait = new ReplicaWait(client, { replicas: 1, timeoutMs: 50 });
    const ticket = wait.begin();
    await client.set('k', '2');
    client.disconnect(true);
    await expect(wait.confirm(ticket, 'the write')).rejects.toMatchObject({
      message: expect.stringContaining('the connection to Redis closed'),
    });
  });

  it('sends one WAIT for the writes confirmed in one turn of the event loop, and none when 0 are asked', async () => {
    const wait = new ReplicaWait(client, { replicas: 1, timeoutMs: 20 });
    const before = await waitCalls(client);
    const tickets = [1, 2, 3, 4, 5].map(() => wait.begin());
    await Promise.all(tickets.map((_, i) => client.set(`g${i}`, '1')));
    // Confirmed in the same turn: one WAIT answers them all (none acknowledged: no replica here).
    const outcomes = await Promise.all(tickets.map((t, i) => wait.confirm(t, `write ${i}`).catch(() => 'refused')));
    expect(outcomes).toEqual(['refused', 'refused', 'refused', 'refused', 'refused']);
    expect((await waitCalls(client)) - before).toBe(1);
    const off = new ReplicaWait(client, { replicas: 0, timeoutMs: 20 });
    expect(off.enabled).toBe(false);
    await off.confirm(off.begin(), 'nothing');
    expect((await waitCalls(client)) - before).toBe(1);
  });
});
