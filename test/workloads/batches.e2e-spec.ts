import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Worker } from 'bullmq';
import { DroverClient, DroverModule, type EnqueueItem } from '@drover/client';
import { startHttpOracle, testRedisUrl, waitFor, type AppProcess, type HttpOracle } from '@drover/testing';
import { ApiCluster } from '../api/support/api-cluster';
import { expectStream, SseConnection } from '../api/support/sse';
import { CLI, droverAs } from '../cli/support/drover-cli';
import { TmuxServer } from '../cli/support/terminal';

/**
 * Batches end to end: a producer's `@drover/client` enqueues batches of `http.request` runs into a
 * real api + two workers; the runs' requests and the callbacks land at a loopback HTTP receiver.
 * The callbacks are consumed by a plain BullMQ worker in this test that posts each one's payload to
 * the receiver, so each callback is counted where it arrives, not by the code under test.
 */
describe('batches (real api + 2 workers, a producer client, a loopback receiver)', () => {
  let api: ApiCluster;
  let oracle: HttpOracle;
  let producer: INestApplicationContext;
  let client: DroverClient;
  let callbackWorker: Worker;
  const workers: AppProcess[] = [];

  beforeAll(async () => {
    oracle = await startHttpOracle();
    api = await ApiCluster.start('batches', {
      worker: false,
      policy: {
        queues: [
          { name: 'default', concurrency: 4, maxAttempts: 2, leaseMs: 1500 },
          { name: 'callbacks', maxAttempts: 1 },
        ],
      },
    });
    for (const name of ['batches-w1', 'batches-w2']) {
      workers.push(await api.cluster.startWorker(name, { DROVER_QUEUES: 'default' }));
    }
    @Module({ imports: [DroverModule.forRoot({ redis: testRedisUrl(), prefix: api.cluster.prefix, name: 'reports' })] })
    class ProducerModule {}
    producer = await NestFactory.createApplicationContext(ProducerModule, { logger: false });
    client = producer.get(DroverClient);
    const keys = api.cluster.keys;
    callbackWorker = new Worker(
      keys.bullQueueName('callbacks'),
      async (job) => {
        await fetch(`${oracle.url}/callback/${job.name}`, { method: 'POST', body: JSON.stringify(job.data.payload) });
      },
      { connection: api.cluster.connections.open('blocking', 'callbacks'), prefix: keys.bullPrefix },
    );
  }, 90_000);

  afterAll(async () => {
    await callbackWorker?.close();
    await producer?.close();
    await api?.close();
    await oracle?.close();
  }, 30_000);

  const request = (path: string): EnqueueItem => ({ job: 'http.request', payload: { url: `${oracle.url}${path}` } });
  const callbacksOf = (batch: string) =>
    oracle.hits.filter((h) => h.path.startsWith('/callback/')).filter((h) => JSON.parse(h.body).batch === batch);
  const batchOf = async (id: string) => (await api.call('GET', `/batches/${id}`, { as: 'viewer' })).body;

  it('survives kill -9 of a worker mid-batch: parked runs count as settled, onComplete arrives once, onSuccess never', async () => {
    const items = [
      ...Array.from({ length: 17 }, (_, i) => request(`/ok/${i}?delayMs=700`)),
      ...Array.from({ length: 3 }, (_, i) => request(`/down/${i}?status=500`)),
    ];
    const id = await client.enqueueBatch(items, {
      onComplete: { queue: 'callbacks', jobType: 'report.done', payload: { report: 'nightly' } },
      onSuccess: { queue: 'callbacks', jobType: 'report.clean' },
    });
    expect(id).toMatch(/^bt-/);
    const stream = expectStream(await SseConnection.open(api, `/batches/${id}/stream`, 'viewer'));
    // One worker dies with runs in hand: they are reclaimed after the lease and run again.
    await oracle.waitFor(
      'a few runs under way',
      (hits) => hits.filter((h) => h.path.startsWith('/ok/')).length >= 4,
      15_000,
    );
    await workers[0]!.stop('SIGKILL');
    await stream.waitForEnd(60_000);
    await waitFor('the callback at the receiver', () => callbacksOf(id).length >= 1, { timeoutMs: 15_000 });
    await new Promise((r) => setTimeout(r, 2_000)); // any second callback would land by now
    const callbacks = callbacksOf(id);
    expect(callbacks.map((h) => h.path)).toEqual(['/callback/report.done']);
    expect(JSON.parse(callbacks[0]!.body)).toEqual({
      batch: id,
      on: 'complete',
      total: 20,
      succeeded: 17,
      parked: 3,
      canceled: 0,
      payload: { report: 'nightly' },
    });
    // Every run reached the receiver (a reclaimed one possibly twice: at least once, as any run).
    const okPaths = new Set(oracle.hits.filter((h) => h.path.startsWith('/ok/')).map((h) => h.path));
    expect(okPaths.size).toBe(17);
    // The kill took runs with it: they reached the receiver again as their second attempt.
    expect(oracle.hits.some((h) => h.path.startsWith('/ok/') && h.attempt === 2)).toBe(true);
    expect(await batchOf(id)).toMatchObject({
      status: 'complete',
      settled: 20,
      parked: 3,
      callbacks: [
        { on: 'complete', queue: 'callbacks', jobType: 'report.done', runId: `${id}.complete` },
        { on: 'success', runId: null },
      ],
    });
    const progress = stream.json('progress');
    expect(progress.at(-1)).toMatchObject({ settled: 20, percent: 100 });
    expect(stream.json('end')).toEqual([{ id, status: 'complete' }]);
  }, 90_000);

  it('fires onComplete and onSuccess once each when every run succeeded; the api lists and pages the batch', async () => {
    const id = await client.enqueueBatch(
      Array.from({ length: 5 }, (_, i) => request(`/fine/${i}`)),
      { onComplete: { queue: 'callbacks' }, onSuccess: { queue: 'callbacks' } },
    );
    await waitFor('both callbacks', () => callbacksOf(id).length >= 2, { timeoutMs: 30_000 });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(
      callbacksOf(id)
        .map((h) => h.path)
        .sort(),
    ).toEqual(['/callback/batch.complete', '/callback/batch.success']);
    expect(await client.getBatch(id)).toMatchObject({ status: 'complete', succeeded: 5 });

    const page = await api.call('GET', `/batches/${id}?limit=2`, { as: 'viewer' });
    expect(page.body).toMatchObject({
      total: 5,
      runs: [expect.stringMatching(/^a-/), expect.any(String)],
      nextOffset: 2,
    });
    const run = await api.call('GET', `/runs/${page.body.runs[0]}`, { as: 'viewer' });
    expect(run.body).toMatchObject({ status: 'succeeded', batch: id });
    const list = await api.call('GET', '/batches?limit=10', { as: 'viewer' });
    expect(list.body.batches[0]).toMatchObject({ id, percent: 100 });
  }, 60_000);

  it('POST /batches as an operator (a viewer is refused), and the CLI lists, shows and watches it', async () => {
    const body = {
      runs: [{ jobType: 'http.request', payload: { url: `${oracle.url}/api/1` } }],
      onComplete: { queue: 'callbacks' },
    };
    expect((await api.call('POST', '/batches', { as: 'viewer', body })).status).toBe(403);
    const bad = await api.call('POST', '/batches', {
      as: 'operator',
      body: { runs: [{ ...body.runs[0], queue: 'nope' }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('body.runs.0.queue');
    const res = await api.call('POST', '/batches', { as: 'operator', body });
    expect(res.status).toBe(201);
    const id = res.body.batchId as string;
    expect(res.headers.get('location')).toBe(`/api/v1/batches/${id}`);

    const cli = droverAs(api, 'viewer');
    const watched = await cli(['batches', 'watch', id, '--timeout', '30s']);
    expect(watched.code).toBe(0);
    expect(watched.stdout).toMatch(/100%\s+1\/1 settled/);
    expect(watched.stdout).toContain(`batch ${id} complete; callbacks: complete → ${id}.complete`);
    const shown = await cli(['batches', 'get', id]);
    expect(shown.stdout).toMatch(/status\s+complete/);
    expect(shown.stdout).toContain(`on complete  batch.complete on callbacks → run ${id}.complete`);
    const listed = await cli(['-o', 'json', 'batches', 'ls']);
    expect(JSON.parse(listed.stdout)[0]).toMatchObject({ id, status: 'complete' });

    // The leader's gauge counts the batches still open: every batch so far completed, then one waits.
    const openGauge = async () => {
      const text = await (await fetch(`${api.scheduler!.baseUrl}/metrics`)).text();
      return /^drover_batches_open (\d+)$/m.exec(text)?.[1];
    };
    await waitFor('no open batch', async () => (await openGauge()) === '0', { timeoutMs: 15_000 });
    const later = { runs: [{ ...body.runs[0], delayMs: 600_000 }] };
    expect((await api.call('POST', '/batches', { as: 'operator', body: later })).status).toBe(201);
    await waitFor('one open batch', async () => (await openGauge()) === '1', { timeoutMs: 15_000 });
  }, 60_000);

  it('batches watch in a real terminal (tmux) redraws one progress row in place, then exits 0', async () => {
    const id = await client.enqueueBatch(
      Array.from({ length: 12 }, (_, i) => request(`/slow/${i}?delayMs=1500`)),
      { onComplete: { queue: 'callbacks' } },
    );
    const bin = mkdtempSync(join(tmpdir(), 'drover-bin-'));
    writeFileSync(join(bin, 'drover'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    chmodSync(join(bin, 'drover'), 0o755);
    const tmux = new TmuxServer({
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      HOME: '/nonexistent',
      DROVER_CLI_CONFIG: '/nonexistent/drover-cli.yaml',
      DROVER_API_URL: api.api.baseUrl,
      DROVER_TOKEN: api.tokens.viewer,
    });
    try {
      const t = await tmux.open('batch-watch');
      await t.type(`drover batches watch ${id}; echo "exit=$?"`);
      const rows = (pane: string) => pane.split('\n').filter((l) => /settled/.test(l));
      const during = await t.waitFor(
        'a partly settled batch',
        (p) => /\s([1-9]|[1-9]\d)%\s+([1-9]|1[01])\/12 settled/.test(p) && p,
      );
      expect(rows(during)).toHaveLength(1);
      expect(await t.exitCode()).toBe(0);
      const after = await t.capture();
      // The row was replaced in place: one progress row on screen, the final one.
      expect(rows(after)).toEqual([expect.stringMatching(/100%\s+12\/12 settled$/)]);
      expect(after).toContain(`batch ${id} complete; callbacks: complete → ${id}.complete`);
    } finally {
      await tmux.kill();
    }
  }, 60_000);
});
