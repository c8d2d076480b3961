import { startHttpOracle, waitFor, type HttpOracle } from '@drover/testing';
import { TestCluster } from './cluster';

describe('concurrency policies with real processes', () => {
  let forbidOracle: HttpOracle;
  let replaceOracle: HttpOracle;
  let cluster: TestCluster;

  beforeAll(async () => {
    forbidOracle = await startHttpOracle();
    replaceOracle = await startHttpOracle();
    cluster = new TestCluster({
      queues: [{ name: 'default', concurrency: 20, timeoutMs: 30_000 }],
      routines: [
        {
          // Every second, but each run takes 2.5 s: fires while one runs must be skipped.
          name: 'slow-forbid',
          jobType: 'http.request',
          queue: 'default',
          trigger: { kind: 'interval', everyMs: 1000 },
          concurrencyPolicy: 'forbid',
          payload: { url: `${forbidOracle.url}/slow?delayMs=2500`, method: 'POST', timeoutMs: 10_000 },
        },
        {
          // Every 2 s, each run would take 10 s: every fire cancels the one running.
          name: 'slow-replace',
          jobType: 'http.request',
          queue: 'default',
          trigger: { kind: 'interval', everyMs: 2000 },
          concurrencyPolicy: 'replace',
          payload: { url: `${replaceOracle.url}/slow?delayMs=10000`, method: 'POST', timeoutMs: 20_000 },
        },
      ],
    });
    await cluster.start('worker', 'worker-1');
    await cluster.start('scheduler', 'sched-1');
  });

  afterAll(async () => {
    await cluster.stopAll();
    await forbidOracle.close();
    await replaceOracle.close();
  });

  it('forbid never overlaps and records the skipped fires', async () => {
    await forbidOracle.waitFor('4 runs', (h) => h.length >= 4, 30_000);
    expect(forbidOracle.maxInFlight()).toBe(1);
    const runs = await cluster.runs.listByRoutine('slow-forbid', { limit: 100 });
    const skipped = runs.filter((r) => r.status === 'skipped');
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped.every((r) => r.reason === 'overlap-forbid')).toBe(true);
    // Every fire is accounted for: ran (oracle) or skipped, and nothing ran twice.
    const ranIds = forbidOracle.hits.map((h) => h.runId);
    expect(new Set(ranIds).size).toBe(ranIds.length);
  }, 60_000);

  it('replace cancels the running run and starts the new one', async () => {
    await replaceOracle.waitFor('3 runs started', (h) => h.length >= 3, 30_000);
    const [firstId] = replaceOracle.hits.map((h) => h.runId);
    const first = await waitFor(
      'the first run to be canceled',
      async () => {
        const r = await cluster.run(firstId!);
        return r?.status === 'canceled' ? r : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(first.reason).toMatch(/replaced by r-slow-replace-/);
    // The replacement ran while the first one was canceled: never two at once for long.
    const open = await cluster.runs.openRunsOfRoutine('slow-replace');
    expect(open.filter((r) => r.status === 'running').length).toBeLessThanOrEqual(1);
  }, 60_000);
});
