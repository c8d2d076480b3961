/**
 * Every dashboard panel query and every alert rule, run against a real Prometheus that scrapes a
 * small fake Drover cluster (two schedulers, two workers, an api) built from the real metric
 * registry. Proves the queries parse, match the metrics' names and labels, and return data.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DroverMetrics } from '@drover/metrics';
import {
  type PrometheusHandle,
  type PromSample,
  serveMetrics,
  startPrometheus,
  waitForTargetsUp,
} from '../../libs/testing/src/prometheus';
import { waitFor } from '../../libs/testing/src/wait-for';

const ROOT = join(__dirname, '..', '..');
const RULES_FILE = join(ROOT, 'observability/prometheus/drover-rules.yml');
const DASHBOARD_FILES = ['drover-overview.json', 'drover-queue.json'];
const QUEUE = 'default';

/** What Grafana would substitute; `${datasource}` never appears inside an expression. */
const TEMPLATE_VALUES: [RegExp, string][] = [
  [/\$__rate_interval\b/g, '15s'],
  [/\$__range\b/g, '1m'],
  [/\$__interval\b/g, '5s'],
  [/\$\{queue\}|\$queue\b/g, QUEUE],
];

interface PanelQuery {
  where: string;
  expr: string;
}

interface GrafanaPanel {
  title?: string;
  type: string;
  panels?: GrafanaPanel[];
  targets?: { expr?: string; refId?: string }[];
}

function panelQueries(): PanelQuery[] {
  const out: PanelQuery[] = [];
  for (const file of DASHBOARD_FILES) {
    const dash = JSON.parse(readFileSync(join(__dirname, file), 'utf8')) as { panels: GrafanaPanel[] };
    const walk = (panels: GrafanaPanel[]) => {
      for (const p of panels) {
        walk(p.panels ?? []);
        for (const t of p.targets ?? []) {
          let expr = t.expr ?? '';
          for (const [pattern, value] of TEMPLATE_VALUES) expr = expr.replace(pattern, value);
          out.push({ where: `${file} / ${p.title} / ${t.refId}`, expr });
        }
      }
    };
    walk(dash.panels);
  }
  return out;
}

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
  return { job: 'api', metrics: new DroverMetrics(), tick: () => undefined };
}

function hasFiniteValue(result: PromSample[]): boolean {
  return result.some((s) => Number.isFinite(Number(s.value[1])));
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
    const example = parse(readFileSync(join(ROOT, 'observability/prometheus/prometheus.yml'), 'utf8')) as {
      scrape_configs: { job_name: string }[];
    };
    const scrapeConfigs = example.scrape_configs
      .filter((job) => targets[job.job_name])
      .map((job) => ({ ...job, static_configs: [{ targets: targets[job.job_name] }] }));
    expect(scrapeConfigs.map((j) => j.job_name).sort()).toEqual(['api', 'scheduler', 'worker']);

    prom = await startPrometheus({
      config: {
        global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
        rule_files: [RULES_FILE],
        scrape_configs: scrapeConfigs,
      },
    });
    await waitForTargetsUp(prom, targetCount);
  }, 45_000);

  afterAll(async () => {
    await prom?.stop();
    await Promise.all(servers.map((s) => s.close()));
  }, 15_000);

  it('every panel query is valid PromQL', async () => {
    const queries = panelQueries();
    expect(queries.length).toBeGreaterThan(30);
    const errors: string[] = [];
    for (const q of queries) {
      if (q.expr.includes('$')) errors.push(`${q.where}: unsubstituted variable in ${q.expr}`);
      else await prom!.query(q.expr).catch((err: Error) => errors.push(`${q.where}: ${err.message}`));
    }
    expect(errors).toEqual([]);
  });

  it('every panel query returns data', async () => {
    const empty = new Map(panelQueries().map((q) => [q.where, q]));
    await waitFor(
      'every panel query to return a finite value',
      async () => {
        for (const [where, q] of empty) if (hasFiniteValue(await prom!.query(q.expr))) empty.delete(where);
        return empty.size === 0;
      },
      { timeoutMs: 40_000, intervalMs: 500 },
    ).catch(() => undefined);
    expect([...empty.values()].map((q) => `${q.where}: ${q.expr}`)).toEqual([]);
  }, 60_000);

  it('the queue variable lists the queues', async () => {
    await expect(prom!.labelValues('queue', 'drover_queue_jobs')).resolves.toEqual([...QUEUES].sort());
  });

  it('every alert rule evaluates without error', async () => {
    const groups = await waitFor(
      'every rule to be evaluated once',
      async () => {
        const g = await prom!.ruleGroups();
        return g.length > 0 && g.every((group) => group.rules.every((r) => r.health !== 'unknown')) ? g : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    const rulesFile = parse(readFileSync(RULES_FILE, 'utf8')) as { groups: { name: string; rules: unknown[] }[] };
    expect(groups.map((g) => g.name).sort()).toEqual(rulesFile.groups.map((g) => g.name).sort());
    expect(groups.flatMap((g) => g.rules).length).toBe(rulesFile.groups.flatMap((g) => g.rules).length);
    const unhealthy = groups
      .flatMap((g) => g.rules)
      .filter((r) => r.health !== 'ok' || r.lastError)
      .map((r) => `${r.name}: ${r.health} ${r.lastError ?? ''}`);
    expect(unhealthy).toEqual([]);
  }, 30_000);
});
