import { startHttpOracle, waitFor, type AppProcess, type HttpOracle } from '@drover/testing';
import { TestCluster } from '../scheduler/cluster';
import { apiTraffic, demoPolicy, metricsText, promtoolCheckMetrics, sampleSum, startIn } from './support/demo-load';

/**
 * `promtool check metrics` on what every app really serves at /metrics: a scheduler, a worker and
 * an api on one cluster, a standalone on another, each under the demo load (the api and standalone
 * also answer a trickle of API calls) until its labelled series exist (outcomes, histograms,
 * leader-only gauges, API requests), so the lint sees every family with data.
 */
describe('/metrics of every app passes promtool check metrics', () => {
  let oracle: HttpOracle;
  let cluster: TestCluster;
  let laptop: TestCluster;
  const apps = new Map<string, AppProcess>();
  const traffic: { stop(): void }[] = [];

  /** Samples that must be non-zero before a scrape is representative, per app. */
  const scheduler = [
    'drover_schedule_fires_total{outcome="enqueued"}',
    'drover_schedule_fires_total{outcome="skipped"}',
    'drover_slots_total{outcome="ran",reason="none"}',
    'drover_slots_total{outcome="skipped",',
    'drover_runs_total{queue="slow",job_type="sleep",status="skipped"}',
    'drover_routines{status="active"}',
    'drover_queue_global_concurrency{queue="default"}',
    'drover_queue_concurrency{queue="default"}',
    'drover_leader{',
  ];
  const worker = [
    'drover_runs_total{queue="default",job_type="noop",status="succeeded"}',
    'drover_runs_total{queue="default",job_type="http.request",status="retried"}',
    'drover_runs_total{queue="default",job_type="http.request",status="parked"}',
    'drover_run_duration_seconds_count{queue="slow",job_type="sleep"}',
    'drover_fire_lateness_seconds_count{queue="default"}',
  ];
  // The request metrics, once the api has answered the calls apiTraffic makes (200s and 404s).
  const api = [
    'process_cpu_seconds_total',
    'drover_api_requests_total{route="/api/v1/openapi.json",method="GET",code="200"}',
    'drover_api_requests_total{route="unmatched",method="GET",code="404"}',
    'drover_api_request_duration_seconds_count{route="/api/v1/openapi.json",method="GET"}',
  ];
  const expected: Record<string, string[]> = {
    scheduler,
    worker,
    api,
    standalone: [...scheduler, ...worker, ...api],
  };

  beforeAll(async () => {
    oracle = await startHttpOracle();
    cluster = new TestCluster(demoPolicy(oracle.url));
    laptop = new TestCluster(demoPolicy(oracle.url));
    const started = await Promise.all([
      startIn(cluster, 'scheduler', 'lint-scheduler'),
      startIn(cluster, 'worker', 'lint-worker'),
      startIn(cluster, 'api', 'lint-api'),
      startIn(laptop, 'standalone', 'lint-standalone'),
    ]);
    for (const app of started) apps.set(app.name, app);
    traffic.push(apiTraffic(apps.get('api')!), apiTraffic(apps.get('standalone')!));
    await waitFor(
      'every app to expose its labelled series with data',
      async () => {
        for (const [name, app] of apps) {
          const text = await metricsText(app);
          const missing = expected[name]!.filter((selector) => !(sampleSum(text, selector) > 0));
          if (missing.length) throw new Error(`${name} has no data yet for ${missing.join(', ')}`);
        }
        return true;
      },
      { timeoutMs: 45_000, intervalMs: 500 },
    );
  }, 100_000);

  afterAll(async () => {
    for (const t of traffic) t.stop();
    await cluster?.stopAll();
    await laptop?.stopAll();
    await oracle?.close();
  }, 30_000);

  it.each(['scheduler', 'worker', 'api', 'standalone'])('%s: no lint problem, exit 0', async (name) => {
    const text = await metricsText(apps.get(name)!);
    // Any output line is a problem (promtool prints nothing for a clean exposition).
    await expect(promtoolCheckMetrics(text)).resolves.toEqual({ code: 0, output: '' });
  });

  it('promtool flags what it should: the check is not vacuous', async () => {
    const broken =
      '# HELP drover_bad_total a gauge named like a counter\n# TYPE drover_bad_total gauge\ndrover_bad_total 1\n';
    const res = await promtoolCheckMetrics(broken);
    expect(res.code).not.toBe(0);
    expect(res.output).toMatch(/drover_bad_total non-counter metrics should not have "_total" suffix/);
  });
});
