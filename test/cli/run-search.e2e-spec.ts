import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'bullmq';
import type { NewRun } from '@drover/store';
import { ApiCluster, expectProblem } from '../api/support/api-cluster';
import { droverAs } from './support/drover-cli';

/**
 * Finding a run over HTTP and with the built `drover` binary, against a real api process: the
 * window, the search, the hidden housekeeping and the 400s, as a user meets them.
 */
/** What a policy file would hold; applied through the api (no scheduler here to apply a file). */
const BUNDLE = {
  queues: [
    { name: 'default', concurrency: 1 },
    { name: 'dead', concurrency: 1, maxAttempts: 1 },
  ],
  routines: ['billing', 'housekeeping'].map((name) => ({
    name,
    jobType: 'noop',
    queue: 'default',
    trigger: { kind: 'manual' },
    system: name === 'housekeeping',
  })),
};

describe('find a run: GET /runs and drover runs ls (real api)', () => {
  let api: ApiCluster;
  let viewer: ReturnType<typeof droverAs>;
  let between: string;
  const json = (out: string) => JSON.parse(out) as { id: string }[];
  const run = (id: string, routine: string | null, payload: unknown, over: Partial<NewRun> = {}): NewRun => ({
    id,
    routine,
    jobType: 'noop',
    queue: 'default',
    source: 'api',
    scheduledFor: null,
    payload,
    ...over,
  });
  const idsOf = async (query: string) => {
    const res = await api.call('GET', `/runs?${query}`, { as: 'viewer' });
    expect(res.status).toBe(200);
    return (res.body.items as { id: string }[]).map((r) => r.id);
  };

  beforeAll(async () => {
    api = await ApiCluster.start('run-search', {
      scheduler: false,
      worker: false,
    });
    viewer = droverAs(api, 'viewer');
    expect((await api.call('POST', '/apply', { body: BUNDLE })).status).toBe(200);
    const { runs, keys, connections } = api.cluster;
    await runs.enqueue(run('b-1', 'billing', { customer: { id: 42 }, tags: ['vip'] }));
    await sleep(20);
    between = new Date().toISOString();
    await sleep(20);
    await runs.enqueue(run('b-2', 'billing', { customer: { id: 7 } }));
    await runs.enqueue(run('h-1', 'housekeeping', { sweep: true }));
    await runs.enqueue(run('d-1', null, { customer: { id: 42 } }, { queue: 'dead', maxAttempts: 1 }));
    const worker = new Worker(keys.bullQueueName('dead'), null, {
      connection: connections.open('blocking', 'park'),
      prefix: keys.bullPrefix,
    });
    await (await worker.getNextJob('tok'))!.moveToFailed(new Error('connect ECONNREFUSED 127.0.0.1:9'), 'tok');
    await worker.close();
  }, 60_000);

  afterAll(() => api?.close(), 30_000);

  it('GET /runs: search, window and housekeeping pick the right runs and say what they read', async () => {
    expect(await idsOf('')).toEqual(['d-1', 'b-2', 'b-1']);
    expect(await idsOf('include=system')).toEqual(['d-1', 'h-1', 'b-2', 'b-1']);
    expect(await idsOf('routine=housekeeping')).toEqual(['h-1']);
    expect(await idsOf('search=customer.id%3D42')).toEqual(['d-1', 'b-1']);
    expect(await idsOf('search=tags%3Dvip&include=payload')).toEqual(['b-1']);
    expect(await idsOf('search=econnrefused&status=parked')).toEqual(['d-1']);
    expect(await idsOf(`since=${encodeURIComponent(between)}&include=system`)).toEqual(['d-1', 'h-1', 'b-2']);
    expect(await idsOf(`until=${encodeURIComponent(between)}`)).toEqual(['b-1']);
    expect(await idsOf('since=1h&until=30m')).toEqual([]);
    const page = await api.call('GET', '/runs?search=nothing-matches', { as: 'viewer' });
    expect(page.body).toEqual({ items: [], scanned: 4, scan_limit_reached: false });
  });

  it('GET /runs: a bad bound, an empty window or a bad include is a 400 naming the field', async () => {
    const badField = async (query: string) =>
      expectProblem(await api.call('GET', `/runs?${query}`, { as: 'viewer' }), 400).errors?.map((e) => e.path);
    expect(await badField('since=yesterday')).toEqual(['query.since']);
    expect(await badField('since=2026-11-25T06:00:00')).toEqual(['query.since']);
    expect(await badField('since=1h&until=2h')).toEqual(['query.until']);
    expect(await badField('include=system,secrets')).toEqual(['query.include']);
  });

  it('drover runs ls --search … --since …: the same runs, a table for people, a usage hint on a bad bound', async () => {
    const found = await viewer(['-o', 'json', 'runs', 'ls', '--search', 'customer.id=42', '--since', '2h']);
    expect(found.code).toBe(0);
    expect(json(found.stdout).map((r) => r.id)).toEqual(['d-1', 'b-1']);
    const system = await viewer(['-o', 'json', 'runs', 'ls', '--system', '--since', between, '--until', '0s']);
    expect(json(system.stdout).map((r) => r.id)).toEqual(['d-1', 'h-1', 'b-2']);
    const table = await viewer(['runs', 'ls', '--search', 'ECONNREFUSED']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/d-1\s+parked/);
    expect(table.stdout).not.toMatch(/b-1/);
    const bad = await viewer(['runs', 'ls', '--since', 'yesterday']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('query.since');
  });
});
