import { Worker } from 'bullmq';
import type { NewRun } from '@drover/store';
import { ApiCluster } from '../api/support/api-cluster';

const KiB = 1024;
const MAX_PAYLOAD = 200 * KiB; // under the 256 KiB payload limit
const bigPayload = (i: number) => ({ i, blob: 'x'.repeat(MAX_PAYLOAD) });

/**
 * Listing bounds against the built api: a page of runs whose jobs carry large payloads loads no
 * payload (the api pod has 256 MiB), answers a small body, and says what it left out; the run
 * read alone is whole.
 */
describe('listing bounds (real api over HTTP)', () => {
  let api: ApiCluster;
  const run = (id: string, over: Partial<NewRun> = {}): NewRun => ({
    id,
    routine: 'bulk',
    jobType: 'noop',
    queue: 'big',
    source: 'api',
    scheduledFor: null,
    payload: bigPayload(0),
    ...over,
  });

  beforeAll(async () => {
    api = await ApiCluster.start('listing-bounds', {
      policy: {
        queues: [
          { name: 'big', concurrency: 1, maxAttempts: 1 },
          { name: 'dead', concurrency: 1, maxAttempts: 1 },
        ],
        routines: [{ name: 'bulk', jobType: 'noop', queue: 'big', trigger: { kind: 'manual' } }],
      },
      worker: false,
    });
    const { runs, bull } = api.cluster;
    // 100 runs × 200 KiB (20 MiB of payloads) staying queued, and two small ones, newest.
    await bull.get('big').pause();
    for (let i = 0; i < 100; i++)
      await runs.enqueue(run(`big-${String(i).padStart(3, '0')}`, { payload: bigPayload(i) }));
    await runs.enqueue(run('small-1', { payload: { hello: 1 } }));
    await runs.enqueue(run('small-2', { payload: { hello: 2 } }));
    // Two parked runs with large payloads and a 40 KiB stack.
    for (const id of ['dead-1', 'dead-2']) {
      await runs.enqueue(run(id, { queue: 'dead', routine: null, maxAttempts: 1 }));
      const worker = new Worker(api.cluster.keys.bullQueueName('dead'), null, {
        connection: api.cluster.connections.open('blocking', 'park'),
        prefix: api.cluster.keys.bullPrefix,
      });
      const job = (await worker.getNextJob('tok'))!;
      const err = new Error('boom');
      err.stack = `Error: boom\n${'y'.repeat(40 * KiB)}`;
      await job.moveToFailed(err, 'tok');
      await worker.close();
    }
  }, 120_000);

  afterAll(() => api?.close(), 30_000);

  /** Bytes Redis has sent to all its clients so far (the api's reads among them). */
  const redisOutput = async () =>
    Number(/total_net_output_bytes:(\d+)/.exec(await api.cluster.connections.command.info('stats'))![1]);

  it('GET /runs?page_size=100 answers quickly with a small body and items without payload', async () => {
    const before = await redisOutput();
    const started = performance.now();
    const page = await api.call('GET', '/runs?queue=big&page_size=100', { as: 'viewer' });
    const took = performance.now() - started;
    // The 20 MiB of payloads stayed in Redis: the api read a few KiB per run.
    expect((await redisOutput()) - before).toBeLessThan(2048 * KiB);
    expect(page.status).toBe(200);
    expect(page.text.length).toBeLessThan(1024 * KiB);
    expect(took).toBeLessThan(5_000);
    expect(page.body.items).toHaveLength(100);
    expect(page.body.items[0].id).toBe('small-2');
    for (const item of page.body.items) {
      expect(item).not.toHaveProperty('payload');
      expect(item).not.toHaveProperty('omitted');
    }
    // Paging goes on from there: the rest of the runs, none twice.
    const next = await api.call('GET', `/runs?queue=big&page_size=100&page_token=${page.body.next_page_token}`, {
      as: 'viewer',
    });
    expect(next.body.items.map((r: { id: string }) => r.id)).toEqual(['big-001', 'big-000']);
    expect(next.text.length).toBeLessThan(64 * KiB);
  }, 30_000);

  it('include=payload inlines small payloads and names the large ones omitted, with their size', async () => {
    const before = await redisOutput();
    const page = await api.call('GET', '/runs?queue=big&page_size=100&include=payload', { as: 'viewer' });
    expect((await redisOutput()) - before).toBeLessThan(2048 * KiB);
    expect(page.status).toBe(200);
    expect(page.text.length).toBeLessThan(1024 * KiB);
    const [small2, small1, big] = page.body.items;
    expect(small2).toMatchObject({ id: 'small-2', payload: { hello: 2 } });
    expect(small2).not.toHaveProperty('omitted');
    expect(small1).toMatchObject({ id: 'small-1', payload: { hello: 1 } });
    expect(big).not.toHaveProperty('payload');
    expect(big.omitted).toEqual([{ field: 'payload', bytes: expect.any(Number) }]);
    expect(big.omitted[0].bytes).toBeGreaterThan(MAX_PAYLOAD);
    const bad = await api.call('GET', '/runs?include=everything', { as: 'viewer' });
    expect(bad.status).toBe(400);
  }, 30_000);

  it("a routine's runs and a queue's parked runs are bounded alike", async () => {
    const routine = await api.call('GET', '/routines/bulk/runs?page_size=1000&include=payload', { as: 'viewer' });
    expect(routine.status).toBe(200);
    expect(routine.body.items).toHaveLength(102);
    expect(routine.text.length).toBeLessThan(1024 * KiB);
    expect(routine.body.items[0]).toMatchObject({ id: 'small-2', payload: { hello: 2 } });
    expect(routine.body.items[2].omitted).toEqual([{ field: 'payload', bytes: expect.any(Number) }]);
    const byRoutine = await api.call('GET', '/runs?routine=bulk&page_size=100', { as: 'viewer' });
    expect(byRoutine.body.items).toHaveLength(100);
    expect(byRoutine.text.length).toBeLessThan(1024 * KiB);
    expect(byRoutine.body.items[0]).not.toHaveProperty('payload');

    const parked = await api.call('GET', '/queues/dead/parked?include=payload', { as: 'viewer' });
    expect(parked.status).toBe(200);
    expect(parked.text.length).toBeLessThan(64 * KiB);
    expect(parked.body.items.map((r: { id: string }) => r.id)).toEqual(['dead-2', 'dead-1']);
    for (const item of parked.body.items) {
      expect(item).not.toHaveProperty('payload');
      expect(item.omitted).toEqual([
        { field: 'errors', bytes: expect.any(Number) },
        { field: 'payload', bytes: expect.any(Number) },
      ]);
      expect(item.errors).toHaveLength(1);
      expect(item.errors[0].message).toBe('Error: boom');
    }
  }, 30_000);

  it('GET /runs/{id} answers the whole run', async () => {
    const one = await api.call('GET', '/runs/big-042', { as: 'viewer' });
    expect(one.status).toBe(200);
    expect(one.body.payload).toEqual(bigPayload(42));
    expect(one.body).not.toHaveProperty('omitted');
    const dead = await api.call('GET', '/runs/dead-1', { as: 'viewer' });
    expect(dead.body.payload).toEqual(bigPayload(0));
    expect(dead.body.errors[0].stack.length).toBeGreaterThan(40 * KiB);
  }, 30_000);
});
