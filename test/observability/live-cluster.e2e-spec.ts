import {
  startHttpOracle,
  startPrometheus,
  waitFor,
  waitForTargetsUp,
  type AppProcess,
  type HttpOracle,
  type PrometheusHandle,
} from '@drover/testing';
import { labelVariables, panelQueries, queriesWithoutData } from '../../observability/dashboards/panel-queries';
import {
  evaluatedRuleGroups,
  ruleProblems,
  testPrometheusConfig,
} from '../../observability/prometheus/live-prometheus';
import { TestCluster } from '../scheduler/cluster';
import { DEMO_QUEUES, apiTraffic, demoPolicy, startIn } from './support/demo-load';

/**
 * The dashboards and alert rules against a real consumer: a real Prometheus on loopback scraping
 * a running cluster (two schedulers, a worker, an api; the compose config's job names) every
 * second under the demo load (and a trickle of API calls, for the API panels). Every panel query of both dashboards (the queue dashboard once per
 * queue) must return a finite value, every rule must evaluate with health ok, and the leader-only
 * gauges must count each routine and job once although two schedulers are scraped.
 */
describe('a live cluster scraped by Prometheus', () => {
  let oracle: HttpOracle;
  let cluster: TestCluster;
  let prom: PrometheusHandle;
  let schedulers: AppProcess[];
  let policy: ReturnType<typeof demoPolicy>;
  let traffic: { stop(): void } | undefined;

  const value = async (expr: string): Promise<number | undefined> => {
    const [sample, ...more] = await prom.query(expr);
    if (more.length) throw new Error(`${expr} returned ${more.length + 1} series`);
    return sample ? Number(sample.value[1]) : undefined;
  };

  beforeAll(async () => {
    oracle = await startHttpOracle();
    policy = demoPolicy(oracle.url);
    cluster = new TestCluster(policy);
    const [a, b, worker, api] = await Promise.all([
      startIn(cluster, 'scheduler', 'live-scheduler-a'),
      startIn(cluster, 'scheduler', 'live-scheduler-b'),
      startIn(cluster, 'worker', 'live-worker'),
      startIn(cluster, 'api', 'live-api'),
    ]);
    schedulers = [a!, b!];
    traffic = apiTraffic(api!);
    const target = (p: AppProcess) => `127.0.0.1:${p.port}`;
    prom = await startPrometheus({
      config: testPrometheusConfig({
        scheduler: schedulers.map(target),
        worker: [target(worker!)],
        api: [target(api!)],
      }),
    });
    await waitForTargetsUp(prom, 4);
  }, 90_000);

  afterAll(async () => {
    traffic?.stop();
    await prom?.stop();
    await cluster?.stopAll();
    await oracle?.close();
  }, 30_000);

  it('every panel query of both dashboards returns data', async () => {
    const queries = [
      ...panelQueries({ queue: DEMO_QUEUES[0] }, ['drover-overview.json']),
      ...DEMO_QUEUES.flatMap((queue) =>
        panelQueries({ queue }, ['drover-queue.json']).map((q) => ({ ...q, where: `${q.where} (queue ${queue})` })),
      ),
    ];
    expect(queries.filter((q) => q.expr.includes('$')).map((q) => q.where)).toEqual([]);
    const empty = await queriesWithoutData(prom, queries, { timeoutMs: 45_000 });
    expect(empty.map((q) => `${q.where}: ${q.expr}`)).toEqual([]);
  }, 60_000);

  it('the queue variable offers every configured queue', async () => {
    for (const v of labelVariables()) {
      await expect(prom.labelValues(v.label, v.metric)).resolves.toEqual([...DEMO_QUEUES].sort());
    }
  });

  it('leader-only gauges come from the leader alone: two schedulers, each routine and queue counted once', async () => {
    const leader = await cluster.waitForLeader(schedulers);
    // The leader exports the gauges every few seconds after its election; wait for Prometheus to have them.
    await waitFor(
      'the leader-only gauges in Prometheus',
      async () => ((await value('count(drover_routines)')) ?? 0) >= 4,
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    expect(await value('count(drover_routines)')).toBe(4); // one exporter × four statuses (disabled too)
    expect(await value('sum(drover_leader)')).toBe(1);
    expect(await value('count(drover_leader)')).toBe(2);
    expect(await value('sum(up{job="scheduler"})')).toBe(2);
    expect(await value('sum(drover_routines)')).toBe(policy.routines.length);
    expect(await value('sum(drover_routines{status="active"})')).toBe(policy.routines.length);
    expect(await value('sum(drover_routines{status="disabled"})')).toBe(0);
    for (const metric of [
      'drover_routines',
      'drover_queue_jobs',
      'drover_queue_workers',
      'drover_queue_global_concurrency',
      'drover_queue_concurrency',
    ]) {
      const exporters = await prom.query(`count by (instance) (${metric})`);
      expect({ metric, exporters: exporters.map((s) => s.metric.instance) }).toEqual({
        metric,
        exporters: [`127.0.0.1:${leader.port}`],
      });
    }
    // One series per queue and state, not one per scheduler.
    const perState = await prom.query('count by (queue, state) (drover_queue_jobs)');
    expect(perState).toHaveLength(DEMO_QUEUES.length * 6);
    expect(perState.map((s) => s.value[1])).toEqual(perState.map(() => '1'));
    // Facts of this cluster: one worker consumes both queues; the configured ceilings.
    expect(await value('sum(drover_queue_workers)')).toBe(DEMO_QUEUES.length);
    for (const q of policy.queues) {
      expect(await value(`sum(drover_queue_global_concurrency{queue="${q.name}"})`)).toBe(q.globalConcurrency);
      expect(await value(`sum(drover_queue_concurrency{queue="${q.name}"})`)).toBe(q.concurrency);
    }
  }, 40_000);

  it('the demo load reaches Prometheus: successes, retries, parked runs and skipped fires', async () => {
    const statuses = async () =>
      Object.fromEntries(
        (await prom.query('sum by (status) (drover_runs_total)')).map((s) => [s.metric.status, Number(s.value[1])]),
      );
    const seen = await waitFor(
      'succeeded, retried, parked and skipped runs',
      async () => {
        const s = await statuses();
        return ['succeeded', 'retried', 'parked', 'skipped'].every((k) => (s[k] ?? 0) > 0) ? s : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 500 },
    );
    expect(seen.canceled).toBe(0); // exported at 0 by the worker, nothing canceled
    expect(await value('sum(drover_schedule_fires_total{outcome="skipped"}) > 0')).toBeGreaterThan(0);
    // The failing hook really failed twice per run at the receiver (attempts 1 and 2).
    expect(oracle.hits.some((h) => h.path === '/hook' && h.attempt === 2)).toBe(true);
  }, 30_000);

  it('every alert rule evaluates without error', async () => {
    expect(ruleProblems(await evaluatedRuleGroups(prom))).toEqual([]);
  }, 30_000);
});
