import { startHttpOracle, waitFor, type AppProcess, type HttpOracle } from '@drover/testing';
import { ApiCluster } from '../api/support/api-cluster';

/**
 * Per-key concurrency end to end: `http.request` runs enqueued through the api (`POST /jobs` with
 * `concurrencyKey`) into a queue limited to 2 runs per key, consumed by two worker processes, one of
 * them killed -9 mid-way. Each key's requests land at its own loopback receiver, so the runs of a key
 * in flight at once are counted where they arrive, not by the code under test.
 */
describe('per-key concurrency (real api + 2 workers, a receiver per key)', () => {
  let api: ApiCluster;
  const oracles: Record<string, HttpOracle> = {};
  const workers: AppProcess[] = [];

  beforeAll(async () => {
    for (const key of ['acme', 'globex', 'initech']) oracles[key] = await startHttpOracle();
    api = await ApiCluster.start('keyed', {
      worker: false,
      policy: {
        queues: [
          {
            name: 'default',
            concurrency: 10,
            maxAttempts: 2,
            leaseMs: 1500,
            concurrencyKey: { source: 'option', limit: 2 },
          },
        ],
      },
    });
    for (const name of ['keyed-w1', 'keyed-w2']) {
      workers.push(await api.cluster.startWorker(name, { DROVER_QUEUES: 'default' }));
    }
  }, 90_000);

  afterAll(async () => {
    await api?.close();
    for (const o of Object.values(oracles)) await o.close();
  }, 30_000);

  const enqueue = async (key: string, path: string) => {
    const res = await api.call('POST', '/jobs', {
      as: 'operator',
      body: { jobType: 'http.request', payload: { url: `${oracles[key]!.url}${path}` }, concurrencyKey: key },
    });
    expect(res.status).toBe(201);
    return res.body.runId as string;
  };

  it('runs at most 2 runs of a key at once across workers, through a kill -9, without holding another key back', async () => {
    const acme: string[] = [];
    for (let i = 0; i < 12; i++) acme.push(await enqueue('acme', `/acme/${i}?delayMs=400`));
    // While the backlog waits: a held run says so, and the queue shows the key's places.
    const held = await api.call('GET', `/runs/${acme[11]}`, { as: 'viewer' });
    expect(held.body).toMatchObject({ status: 'queued', concurrencyKey: 'acme', waitingForKey: true });
    const queue = await api.call('GET', '/queues/default', { as: 'viewer' });
    expect(queue.body.keys).toEqual([{ key: 'acme', running: 2, waiting: expect.any(Number) }]);
    expect(queue.body.policy.concurrencyKey).toEqual({ source: 'option', limit: 2 });

    const globexAt = Date.now();
    const globex = await enqueue('globex', '/globex/0');
    await oracles.globex!.waitFor('the other key’s run', (h) => h.length >= 1, 5_000);
    // Not behind acme's backlog (10 runs × 400 ms, 2 at a time, would be 2 s): within about one run.
    expect(oracles.globex!.hits[0]!.receivedAt - globexAt).toBeLessThan(1_500);

    await oracles.acme!.waitFor('a few acme runs under way', (h) => h.length >= 4, 15_000);
    await workers[0]!.stop('SIGKILL');
    await waitFor('every acme run at the receiver', () => new Set(oracles.acme!.hits.map((h) => h.path)).size === 12, {
      timeoutMs: 30_000,
    });
    for (const id of [...acme, globex]) {
      await waitFor(`run ${id} to succeed`, async () => {
        const r = await api.call('GET', `/runs/${id}`, { as: 'viewer' });
        return r.body.status === 'succeeded';
      });
    }
    expect(oracles.acme!.maxInFlight()).toBe(2);
    expect(oracles.globex!.maxInFlight()).toBe(1);
    await waitFor('every place freed', async () => {
      const q = await api.call('GET', '/queues/default', { as: 'viewer' });
      return q.body.keys?.length === 0;
    });
  }, 90_000);

  it('keeps the limit for the runs of a batch (POST /batches with concurrencyKey), which completes once they settle', async () => {
    const run = (i: number, over: Record<string, unknown> = {}) => ({
      jobType: 'http.request',
      payload: { url: `${oracles.initech!.url}/initech/${i}?delayMs=300` },
      concurrencyKey: 'initech',
      ...over,
    });
    for (const bad of ['', 'k'.repeat(129), 7]) {
      const res = await api.call('POST', '/batches', {
        as: 'operator',
        body: { runs: [run(0), run(1, { concurrencyKey: bad })] },
      });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ path: 'body.runs.1.concurrencyKey' })]);
    }
    expect(oracles.initech!.hits).toHaveLength(0);

    const res = await api.call('POST', '/batches', {
      as: 'operator',
      body: { runs: Array.from({ length: 8 }, (_, i) => run(i)) },
    });
    expect(res.status).toBe(201);
    const { batchId } = res.body as { batchId: string };
    const first = await api.call('GET', `/batches/${batchId}`, { as: 'viewer' });
    const held = await api.call('GET', `/runs/${first.body.runs[7]}`, { as: 'viewer' });
    expect(held.body).toMatchObject({ concurrencyKey: 'initech', batch: batchId });
    const batch = await waitFor(
      'the batch complete',
      async () => {
        const b = await api.call('GET', `/batches/${batchId}`, { as: 'viewer' });
        return b.body.status === 'complete' && b.body;
      },
      { timeoutMs: 30_000 },
    );
    expect(batch).toMatchObject({ total: 8, settled: 8, succeeded: 8 });
    expect(new Set(oracles.initech!.hits.map((h) => h.path)).size).toBe(8);
    expect(oracles.initech!.maxInFlight()).toBe(2);
  }, 60_000);
});
