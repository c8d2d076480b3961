import { startHttpOracle, waitFor, type HttpOracle } from '@drover/testing';
import type { components } from '@drover/api-client';
import type { NewRun } from '@drover/store';

type OverallStats = components['schemas']['OverallStats'];
import { droverAs } from '../cli/support/drover-cli';
import { ApiCluster, expectProblem } from './support/api-cluster';

/**
 * A queue's run totals over HTTP against a real api, scheduler and worker, and `drover queues stats` as the
 * built binary: runs succeed by calling an oracle (which counts them) or park on its 500s.
 */
describe('queue stats (real api + scheduler + worker, the drover binary)', () => {
  let api: ApiCluster;
  let oracle: HttpOracle;

  const run = (id: string, queue: string, path: string): NewRun => ({
    id,
    routine: null,
    jobType: 'http.request',
    queue,
    source: 'api',
    scheduledFor: null,
    payload: { url: `${oracle.url}${path}` },
  });

  beforeAll(async () => {
    oracle = await startHttpOracle({
      answer: (path) => (path.startsWith('/fail') ? { status: 500, json: { error: 'down' } } : undefined),
    });
    api = await ApiCluster.start('api-queue-stats', {
      policy: {
        queues: [
          { name: 'default', concurrency: 5 },
          { name: 'flaky', maxAttempts: 1 },
        ],
      },
    });
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await oracle?.close();
  }, 30_000);

  it('counts the runs the worker settled, per queue and overall, and refuses bad windows', async () => {
    for (let i = 0; i < 4; i++) await api.cluster.runs.enqueue(run(`ok-${i}`, 'default', `/ok/${i}`));
    for (let i = 0; i < 2; i++) await api.cluster.runs.enqueue(run(`bad-${i}`, 'flaky', `/fail/${i}`));
    await oracle.waitFor('4 deliveries', (hits) => hits.length === 4, 15_000);

    // Workers add their counts once a second: the totals follow within that.
    let overall!: OverallStats;
    await waitFor(
      'the totals of 6 settled runs',
      async () => {
        overall = (await api.call('GET', '/stats?window=1h', { as: 'viewer' })).body as OverallStats;
        return overall.totals.processed === 6;
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    expect(overall.totals).toEqual({ processed: 6, failed: 2, parked: 2, succeeded: 4, canceled: 0, retried: 0 });
    expect(overall.queues.map((q) => [q.queue, q.totals.processed, q.totals.parked])).toEqual([
      ['default', 4, 0],
      ['flaky', 2, 2],
    ]);
    expect(overall.stepMs).toBe(60_000);
    expect(overall.points.reduce((n, p) => n + p.processed, 0)).toBe(6);

    const flaky = await api.call('GET', '/queues/flaky/stats?window=7d', { as: 'viewer' });
    expect(flaky.status).toBe(200);
    expect(flaky.body).toMatchObject({ queue: 'flaky', window: '7d', stepMs: 3_600_000 });
    expect(flaky.body.totals.parked).toBe(2);
    expect(flaky.body.points).toHaveLength(169);
    expect(flaky.body.latenessMs.p50).toEqual(expect.any(Number));

    expectProblem(await api.call('GET', '/queues/flaky/stats?window=15m', { as: 'viewer' }), 400);
    expectProblem(await api.call('GET', '/queues/nope/stats', { as: 'viewer' }), 404);
    expect((await api.call('GET', '/stats', { as: 'none' })).status).toBe(401);

    const viewer = droverAs(api, 'viewer');
    const table = await viewer(['queues', 'stats', '--window', '1h']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^default\s+4\s+0\s+0\s/m);
    expect(table.stdout).toMatch(/^flaky\s+2\s+2\s+2\s/m);
    expect(table.stdout).toMatch(/^all\s+6\s+2\s+2\s/m);
    const one = await viewer(['queues', 'stats', 'flaky', '-o', 'json']);
    expect(JSON.parse(one.stdout)).toMatchObject({ queue: 'flaky', window: '24h', totals: { parked: 2 } });
    const bad = await viewer(['queues', 'stats', 'flaky', '--window', '8d']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('at most 7d');
  }, 60_000);
});
