import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { API_DURATION_BUCKETS, FIRE_LATENESS_BUCKETS, METRIC, RUN_DURATION_BUCKETS } from './metric-names';

/**
 * prom-client defaults that are gauges named like counters, which `promtool check metrics` rejects
 * (prometheus/client_js#283). Each only repeats the sum of its labelled sibling:
 * `sum without (type) (nodejs_active_handles)` and so on.
 */
export const MISNAMED_DEFAULT_GAUGES = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
] as const;

/**
 * Every Drover metric, registered once on a private registry per process. Apps export all of
 * them; which ones carry values depends on the role (a worker never sets drover_leader).
 */
export class DroverMetrics {
  readonly registry: Registry;
  readonly runsTotal: Counter<'queue' | 'job_type' | 'status'>;
  readonly runDuration: Histogram<'queue' | 'job_type'>;
  readonly fireLateness: Histogram<'queue'>;
  readonly queueJobs: Gauge<'queue' | 'state'>;
  readonly runsAwaitingApproval: Gauge<'queue'>;
  readonly scheduleFires: Counter<'outcome'>;
  readonly slots: Counter<'outcome' | 'reason'>;
  readonly leader: Gauge<'instance'>;
  readonly leaderTransitions: Counter;
  readonly leaseReclaims: Counter<'queue'>;
  readonly routines: Gauge<'status'>;
  readonly workerActiveJobs: Gauge<'queue'>;
  readonly watchdogRepairs: Counter;
  readonly queueWorkers: Gauge<'queue'>;
  readonly queueGlobalConcurrency: Gauge<'queue'>;
  readonly queueConcurrency: Gauge<'queue'>;
  readonly batchesOpen: Gauge;
  readonly apiRequests: Counter<'route' | 'method' | 'code'>;
  readonly apiRequestDuration: Histogram<'route' | 'method'>;

  constructor(opts: { defaultMetrics?: boolean; defaultLabels?: Record<string, string> } = {}) {
    this.registry = new Registry();
    if (opts.defaultLabels) this.registry.setDefaultLabels(opts.defaultLabels);
    if (opts.defaultMetrics !== false) {
      collectDefaultMetrics({ register: this.registry });
      for (const name of MISNAMED_DEFAULT_GAUGES) this.registry.removeSingleMetric(name);
    }
    const registers = [this.registry];
    this.runsTotal = new Counter({
      name: METRIC.runsTotal,
      help: 'Run outcomes by queue, job type and status (succeeded, failed, retried, parked, canceled, skipped).',
      labelNames: ['queue', 'job_type', 'status'],
      registers,
    });
    this.runDuration = new Histogram({
      name: METRIC.runDurationSeconds,
      help: 'Wall time of one attempt, from handler start to its end.',
      labelNames: ['queue', 'job_type'],
      buckets: RUN_DURATION_BUCKETS,
      registers,
    });
    this.fireLateness = new Histogram({
      name: METRIC.fireLatenessSeconds,
      help: 'Run start minus its scheduled slot time, for scheduled runs.',
      labelNames: ['queue'],
      buckets: FIRE_LATENESS_BUCKETS,
      registers,
    });
    this.queueJobs = new Gauge({
      name: METRIC.queueJobs,
      help: 'Jobs per queue and state; exported by the scheduler leader only, so sums do not double count.',
      labelNames: ['queue', 'state'],
      registers,
    });
    this.runsAwaitingApproval = new Gauge({
      name: METRIC.runsAwaitingApproval,
      help: 'Runs awaiting an operator approval per queue; exported by the scheduler leader only.',
      labelNames: ['queue'],
      registers,
    });
    this.scheduleFires = new Counter({
      name: METRIC.scheduleFiresTotal,
      help: 'Schedule fires by outcome (enqueued, skipped, failed).',
      labelNames: ['outcome'],
      registers,
    });
    this.slots = new Counter({
      name: METRIC.slotsTotal,
      help: 'Slots by fate as the scheduler decides them: outcome ran (reason none), skipped or superseded (a bounded reason).',
      labelNames: ['outcome', 'reason'],
      registers,
    });
    this.leader = new Gauge({
      name: METRIC.leader,
      help: '1 while this scheduler instance holds the leader lease, else 0.',
      labelNames: ['instance'],
      registers,
    });
    this.leaderTransitions = new Counter({
      name: METRIC.leaderTransitionsTotal,
      help: 'Times this instance gained or lost leadership.',
      registers,
    });
    this.leaseReclaims = new Counter({
      name: METRIC.leaseReclaimsTotal,
      help: 'Jobs whose lease expired (worker died or stalled) and were reclaimed.',
      labelNames: ['queue'],
      registers,
    });
    this.routines = new Gauge({
      name: METRIC.routines,
      help: 'Routines by status; exported by the scheduler leader only.',
      labelNames: ['status'],
      registers,
    });
    this.workerActiveJobs = new Gauge({
      name: METRIC.workerActiveJobs,
      help: 'Jobs this worker process is running now.',
      labelNames: ['queue'],
      registers,
    });
    this.watchdogRepairs = new Counter({
      name: METRIC.watchdogRepairsTotal,
      help: 'Routines whose overdue schedule the leader watchdog had to repair.',
      registers,
    });
    this.queueWorkers = new Gauge({
      name: METRIC.queueWorkers,
      help: 'Worker processes consuming each queue; exported by the scheduler leader only.',
      labelNames: ['queue'],
      registers,
    });
    this.queueGlobalConcurrency = new Gauge({
      name: METRIC.queueGlobalConcurrency,
      help: 'Configured cluster-wide ceiling of running jobs per queue (0 = none); leader only.',
      labelNames: ['queue'],
      registers,
    });
    // The divisor of the autoscaling query (backlog per worker pod), so it follows the policy.
    this.batchesOpen = new Gauge({
      name: METRIC.batchesOpen,
      help: 'Batches not yet complete (at most 30 days old); exported by the scheduler leader only.',
      registers,
    });
    this.queueConcurrency = new Gauge({
      name: METRIC.queueConcurrency,
      help: 'Configured jobs one worker process runs at once per queue (policy concurrency); leader only.',
      labelNames: ['queue'],
      registers,
    });
    this.apiRequests = new Counter({
      name: METRIC.apiRequestsTotal,
      help: 'Management API requests by route template, method and status code.',
      labelNames: ['route', 'method', 'code'],
      registers,
    });
    this.apiRequestDuration = new Histogram({
      name: METRIC.apiRequestDurationSeconds,
      help: 'Management API request duration by route template and method (event streams excluded).',
      labelNames: ['route', 'method'],
      buckets: API_DURATION_BUCKETS,
      registers,
    });
  }

  /** Prometheus text exposition of this process's registry. */
  async expose(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
