import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DroverClient, DroverModule } from '@drover/client';
import { startHttpOracle, testRedisUrl, waitFor, type AppProcess, type HttpOracle } from '@drover/testing';
import { ApiCluster } from '../api/support/api-cluster';
import { droverAs } from '../cli/support/drover-cli';

/**
 * Flows end to end: `http.request` runs in flows, enqueued over HTTP (`POST /flows`), by a producer's
 * `@drover/client` and by the built CLI, consumed by two worker processes (one killed -9 mid-flow).
 * Every run's request lands at a loopback receiver, so when each run happened, and how often, is
 * counted where it arrives, not by the code under test.
 */
describe('flows (real api + 2 workers, a producer client, the CLI, a loopback receiver)', () => {
  let api: ApiCluster;
  let oracle: HttpOracle;
  let producer: INestApplicationContext;
  let client: DroverClient;
  const workers: AppProcess[] = [];

  beforeAll(async () => {
    oracle = await startHttpOracle();
    api = await ApiCluster.start('flows', {
      worker: false,
      policy: {
        queues: [
          { name: 'default', concurrency: 4, maxAttempts: 2, leaseMs: 1500 },
          { name: 'etl', concurrency: 4, maxAttempts: 2, leaseMs: 1500 },
        ],
      },
    });
    for (const name of ['flows-w1', 'flows-w2']) {
      workers.push(await api.cluster.startWorker(name, { DROVER_QUEUES: 'default,etl' }));
    }
    @Module({ imports: [DroverModule.forRoot({ redis: testRedisUrl(), prefix: api.cluster.prefix, name: 'reports' })] })
    class ProducerModule {}
    producer = await NestFactory.createApplicationContext(ProducerModule, { logger: false });
    client = producer.get(DroverClient);
  }, 90_000);

  afterAll(async () => {
    await producer?.close();
    await api?.close();
    await oracle?.close();
  }, 30_000);

  const request = (path: string) => ({ jobType: 'http.request', payload: { url: `${oracle.url}${path}` } });
  const hitsOf = (prefix: string) => oracle.hits.filter((h) => h.path.startsWith(prefix));
  const runOf = async (id: string) => (await api.call('GET', `/runs/${id}`, { as: 'viewer' })).body;
  const settle = (id: string, status: string) =>
    waitFor(`run ${id} to be ${status}`, async () => (await runOf(id)).status === status, { timeoutMs: 30_000 });

  it('runs the parent once, after every child on two queues answered, through a kill -9 of a worker', async () => {
    const runs = [
      request('/a/top'),
      ...Array.from({ length: 6 }, (_, i) => ({ ...request(`/a/child/${i}?delayMs=600`), queue: 'etl', parent: 0 })),
      { ...request('/a/mid'), parent: 0 },
      { ...request('/a/leaf?delayMs=300'), queue: 'etl', parent: 7 },
    ];
    const res = await api.call('POST', '/flows', { as: 'operator', body: { runs } });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/runs/${res.body.id}`);
    const ids = res.body.runs as string[];
    expect(ids).toHaveLength(9);
    expect(await runOf(ids[0]!)).toMatchObject({ status: 'queued', waitingForChildren: true });

    await oracle.waitFor(
      'children under way',
      (h) => h.filter((x) => x.path.startsWith('/a/child/')).length >= 2,
      10_000,
    );
    await workers[0]!.stop('SIGKILL');
    await settle(ids[0]!, 'succeeded');
    await new Promise((r) => setTimeout(r, 500));

    // Each run once at the receiver (a child the killed worker held may arrive twice: at least once,
    // as every run); the parent exactly once, after every child's answer and after its own child.
    expect(hitsOf('/a/top')).toHaveLength(1);
    expect(hitsOf('/a/mid')).toHaveLength(1);
    expect(new Set(hitsOf('/a/child/').map((h) => h.path)).size).toBe(6);
    const top = hitsOf('/a/top')[0]!.receivedAt;
    const lastChildAnswered = Math.max(...hitsOf('/a/child/').map((h) => h.receivedAt + 600));
    expect(top).toBeGreaterThanOrEqual(lastChildAnswered);
    expect(hitsOf('/a/mid')[0]!.receivedAt).toBeGreaterThanOrEqual(hitsOf('/a/leaf')[0]!.receivedAt + 300);

    const view = await runOf(ids[0]!);
    expect(view.flow.children).toHaveLength(7);
    expect(view.flow.children.every((c: { status: string }) => c.status === 'succeeded')).toBe(true);
    expect((await runOf(ids[8]!)).flow).toEqual({ parent: { id: ids[7], queue: 'default' }, onFailure: 'fail' });
  }, 90_000);

  it('a parked child parks its parent, which never runs; an ignored one lets it run', async () => {
    const failing = await client.enqueueFlow({
      job: 'http.request',
      payload: { url: `${oracle.url}/b/top` },
      children: [
        {
          job: 'http.request',
          payload: { url: `${oracle.url}/b/down?status=500` },
          options: { queue: 'etl', maxAttempts: 1 },
        },
        { job: 'http.request', payload: { url: `${oracle.url}/b/ok` } },
      ],
    });
    const ignoring = await client.enqueueFlow({
      job: 'http.request',
      payload: { url: `${oracle.url}/c/top` },
      children: [
        {
          job: 'http.request',
          payload: { url: `${oracle.url}/c/down?status=500` },
          options: { queue: 'etl', maxAttempts: 1 },
          onFailure: 'ignore',
        },
      ],
    });
    await settle(failing.id, 'parked');
    await settle(ignoring.id, 'succeeded');
    await new Promise((r) => setTimeout(r, 500));
    expect(hitsOf('/b/top')).toHaveLength(0);
    expect(hitsOf('/c/top')).toHaveLength(1);
    expect(await runOf(failing.id)).toMatchObject({
      reason: 'child-failed',
      error: { message: expect.stringContaining(failing.children![0]!.id) },
    });
    expect((await runOf(ignoring.id)).flow.children[0].status).toBe('parked');
  }, 60_000);

  it('canceling a parent over HTTP cancels its pending children: none of the flow reaches the receiver', async () => {
    // The children wait behind a long run on a one-run queue... here: a child delayed by its own delay.
    const res = await api.call('POST', '/flows', {
      as: 'operator',
      body: { runs: [request('/d/top'), { ...request('/d/late'), parent: 0, delayMs: 60_000 }] },
    });
    const [top, late] = res.body.runs as string[];
    const cancel = await api.call('POST', `/runs/${top}/cancel`, {
      as: 'operator',
      body: { reason: 'not this month' },
    });
    expect(cancel.body.outcome).toBe('canceled');
    expect(await runOf(late!)).toMatchObject({ status: 'canceled', reason: 'parent-canceled' });
    expect(await runOf(top!)).toMatchObject({ status: 'canceled', reason: 'not this month' });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(hitsOf('/d/')).toHaveLength(0);
  }, 30_000);

  it('refuses a bad flow with a 400 naming the run, and writes none of it', async () => {
    const before = (await api.call('GET', '/runs?page_size=100', { as: 'viewer' })).body.items.length;
    const bad = await api.call('POST', '/flows', {
      as: 'operator',
      body: { runs: [request('/e/top'), { ...request('/e/x'), parent: 0, queue: 'nowhere' }] },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('body.runs.1.queue');
    const orphan = await api.call('POST', '/flows', {
      as: 'operator',
      body: { runs: [request('/e/top'), request('/e/y')] },
    });
    expect(orphan.status).toBe(400);
    expect(JSON.stringify(orphan.body)).toContain('must name an earlier run');
    const delayedParent = await api.call('POST', '/flows', {
      as: 'operator',
      body: {
        runs: [
          { ...request('/e/top'), delayMs: 1000 },
          { ...request('/e/z'), parent: 0 },
        ],
      },
    });
    expect(delayedParent.status).toBe(400);
    expect(JSON.stringify(delayedParent.body)).toContain('body.runs.0: a parent starts when its children finish');
    expect((await api.call('POST', '/flows', { as: 'viewer', body: { runs: [request('/e/v')] } })).status).toBe(403);
    expect((await api.call('GET', '/runs?page_size=100', { as: 'viewer' })).body.items.length).toBe(before);
  }, 30_000);

  it('the CLI enqueues a flow from a YAML file and shows its tree', async () => {
    const drover = droverAs(api, 'operator');
    const dir = mkdtempSync(join(tmpdir(), 'drover-flow-'));
    const file = join(dir, 'flow.yaml');
    writeFileSync(
      file,
      [
        'jobType: http.request',
        `payload: { url: "${oracle.url}/f/top" }`,
        'children:',
        `  - { jobType: http.request, queue: etl, payload: { url: "${oracle.url}/f/one" } }`,
        `  - jobType: http.request`,
        `    payload: { url: "${oracle.url}/f/two" }`,
        '    children:',
        `      - { jobType: http.request, payload: { url: "${oracle.url}/f/three?status=500" }, maxAttempts: 1, onFailure: ignore }`,
      ].join('\n'),
    );
    const add = await drover(['-o', 'json', 'flows', 'add', '-f', file]);
    expect(add.code).toBe(0);
    const created = JSON.parse(add.stdout) as { id: string; runs: string[] };
    expect(created.runs).toHaveLength(4);
    await settle(created.id, 'succeeded');
    const tree = await drover(['flows', 'tree', created.id]);
    expect(tree.code).toBe(0);
    const lines = tree.stdout.trimEnd().split('\n');
    expect(lines[0]).toContain(created.id);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(new RegExp(`^├─ ${created.runs[1]}.*etl.*succeeded`));
    expect(lines[2]).toMatch(new RegExp(`^└─ ${created.runs[2]}.*succeeded`));
    expect(lines[3]).toMatch(new RegExp(`^   └─ ${created.runs[3]}.*parked`));
    const get = await drover(['runs', 'get', created.runs[3]!]);
    expect(get.stdout).toMatch(new RegExp(`parent\\s+${created.runs[2]} \\(queue default; its failure is ignored\\)`));
    const bad = await drover(['flows', 'add', '-f', file.replace('flow.yaml', 'none.yaml')]);
    expect(bad.code).not.toBe(0);
    expect(hitsOf('/f/top')).toHaveLength(1);
  }, 60_000);
});
