/**
 * Every dashboard panel query and every alert rule, run against a real Prometheus that scrapes a
 * small fake Drover cluster (two schedulers, two workers, an api) built from the real metric
 * registry. Proves the queries parse, match the metrics' names and labels, and return data.
 */
import { DroverMetrics } from '@drover/metrics';
import {
  type PrometheusHandle,
  serveMetrics,
  startPrometheus,
  waitForTargetsUp,
} from '../../libs/testing/src/prometheus';
import { evaluatedRuleGroups, ruleProblems, testPrometheusConfig } from '../prometheus/live-prometheus';
import { labelVariables, panelQueries, queriesWithoutData } from './panel-queries';

const QUEUE = 'default';

const JOB_TYPES = ['http.request', 'reports.generate', 'noop'] as const;
const QUEUES = [QUEUE, 'reports'] as const;

/** A fake Drover process: the real registry, advanced a little before every scrape. */
interface FakeProcess {
  job: 'scheduler' | 'worker' | 'api';
  metrics: DroverMetrics;
  tick(n: number): void;
}

function scheduler(id: string, leads: boolean): FakeProcess {
  const m = new DroverMetrics();
  m.leader.set({ instance: id }, leads ? 1 : 0);
  m.leaderTransitions.inc(leads ? 1 : 2);
  return {
    job: 'scheduler',
    metrics: m,
    tick: (n) => {
      if (!leads) return;
      // Cluster-wide gauges: only the leader exports them.
      for (const [i, queue] of QUEUES.entries()) {
        m.queueJobs.set({ queue, state: 'waiting' }, 120 + n * (i + 1));
        m.queueJobs.set({ queue, state: 'prioritized' }, 4 + (n % 3));
        m.queueJobs.set({ queue, state: 'active' }, 8 + (n % 5));
        m.queueJobs.set({ queue, state: 'delayed' }, 30);
        m.queueJobs.set({ queue, state: 'failed' }, 2);
        m.queueJobs.set({ queue, state: 'parked' }, 3 + i);
        m.queueWorkers.set({ queue }, 2 - i);
        m.queueGlobalConcurrency.set({ queue }, i === 0 ? 50 : 0);
      }
      m.routines.set({ status: 'active' }, 42);
      m.routines.set({ status: 'paused' }, 3);
      m.routines.set({ status: 'archived' }, 7);
      m.scheduleFires.inc({ outcome: 'enqueued' }, 4);
      m.scheduleFires.inc({ outcome: 'skipped' }, 1);
      if (n % 3 === 0) m.scheduleFires.inc({ outcome: 'failed' });
      m.runsTotal.inc({ queue: QUEUE, job_type: 'http.request', status: 'skipped' });
      if (n % 4 === 0) m.watchdogRepairs.inc();
    },
  };
}

function worker(seed: number): FakeProcess {
  const m = new DroverMetrics();
  return {
    job: 'worker',
    metrics: m,
    tick: (n) => {
      for (const queue of QUEUES) {
        for (const [j, jobType] of JOB_TYPES.entries()) {
          const labels = { queue, job_type: jobType };
          m.runsTotal.inc({ ...labels, status: 'succeeded' }, 5 + j + seed);
          m.runsTotal.inc({ ...labels, status: 'failed' }, (n + j) % 2);
          m.runsTotal.inc({ ...labels, status: 'retried' }, 1);
          m.runsTotal.inc({ ...labels, status: 'parked' }, n % 3 === j ? 1 : 0);
          m.runsTotal.inc({ ...labels, status: 'canceled' }, n % 5 === 0 ? 1 : 0);
          for (const seconds of [0.02, 0.3, 1.7 + j, 12 * (seed + 1)]) m.runDuration.observe(labels, seconds);
        }
        for (const seconds of [0.004, 0.08, 0.6, 2 + seed]) m.fireLateness.observe({ queue }, seconds);
        m.workerActiveJobs.set({ queue }, 3 + seed + (n % 4));
        if (n % 2 === seed) m.leaseReclaims.inc({ queue });
      }
    },
  };
}

function api(): FakeProcess {
  const m = new DroverMetrics();
  const calls = [
    { route: '/api/v1/routines', method: 'GET', code: '200', seconds: 0.012 },
    { route: '/api/v1/routines/:name/trigger', method: 'POST', code: '201', seconds: 0.03 },
    { route: '/api/v1/routines/:name', method: 'GET', code: '404', seconds: 0.004 },
    { route: '/api/v1/audit', method: 'GET', code: '403', seconds: 0.002 },
    { route: 'unmatched', method: 'GET', code: '404', seconds: 0.001 },
  ];
  return {
    job: 'api',
    metrics: m,
    tick: (n) => {
      for (const c of calls) {
        m.apiRequests.inc({ route: c.route, method: c.method, code: c.code }, 3);
        m.apiRequestDuration.observe({ route: c.route, method: c.method }, c.seconds * (1 + (n % 3)));
      }
      if (n % 4 === 0) m.apiRequests.inc({ route: '/api/v1/plan', method: 'GET', code: '500' });
    },
  };
}

describe('observability against a real Prometheus', () => {
  let prom: PrometheusHandle | undefined;
  const servers: { close(): Promise<void> }[] = [];
  let targetCount = 0;

  beforeAll(async () => {
    const fleet = [scheduler('scheduler-a', true), scheduler('scheduler-b', false), worker(0), worker(1), api()];
    const targets: Record<string, string[]> = {};
    for (const p of fleet) {
      let scrapes = 0;
      p.tick(scrapes);
      const server = await serveMetrics(
        () => p.metrics.expose(),
        () => p.tick(++scrapes),
      );
      servers.push(server);
      (targets[p.job] ??= []).push(server.target);
    }
    targetCount = fleet.length;

    // The compose example's jobs, scraping the fake fleet: dashboards select processes by job name.
    expect(Object.keys(targets).sort()).toEqual(['api', 'scheduler', 'worker']);
    prom = await startPrometheus({ config: testPrometheusConfig(targets) });
    await waitForTargetsUp(prom, targetCount);
  }, 45_000);

  afterAll(async () => {
    await prom?.stop();
    await Promise.all(servers.map((s) => s.close()));
  }, 15_000);

  it('every panel query is valid PromQL', async () => {
    const queries = panelQueries({ queue: QUEUE });
    expect(queries.length).toBeGreaterThan(30);
    const errors: string[] = [];
    for (const q of queries) {
      if (q.expr.includes('$')) errors.push(`${q.where}: unsubstituted variable in ${q.expr}`);
      else await prom!.query(q.expr).catch((err: Error) => errors.push(`${q.where}: ${err.message}`));
    }
    expect(errors).toEqual([]);
  });

  it('every panel query returns data', async () => {
    const empty = await queriesWithoutData(prom!, panelQueries({ queue: QUEUE }), { timeoutMs: 40_000 });
    expect(empty.map((q) => `${q.where}: ${q.expr}`)).toEqual([]);
  }, 60_000);

  it('the queue variable lists the queues', async () => {
    expect(labelVariables()).toEqual([{ name: 'queue', metric: 'drover_queue_jobs', label: 'queue' }]);
    await expect(prom!.labelValues('queue', 'drover_queue_jobs')).resolves.toEqual([...QUEUES].sort());
  });

  it('every alert rule evaluates without error', async () => {
    expect(ruleProblems(await evaluatedRuleGroups(prom!))).toEqual([]);
  }, 30_000);
});
