import type { Histogram } from 'prom-client';
import type { DroverMetrics, RunMetricStatus } from '@drover/metrics';

type Collectable = { collect?: (this: unknown) => unknown };

interface PerType {
  counts: Map<RunMetricStatus, number>;
  durations: number[];
}

/** The outcomes a worker records (`skipped` is the scheduler's; nothing here ends a run as `failed`). */
const WORKER_STATUSES: readonly RunMetricStatus[] = ['succeeded', 'retried', 'parked', 'canceled'];

/** Observations kept before a flush is forced even without a scrape. */
const MAX_PENDING = 10_000;

/**
 * The worker's run metrics. Recording is a plain in-memory add; the numbers reach prom-client
 * when the registry is read (a scrape), through prom-client's `collect` hook on each metric.
 * prom-client validates and hashes the label set on every call, which at tens of thousands of
 * jobs per second is a measurable share of a worker's CPU; batching removes it from the job path.
 * Outcomes are counted from BullMQ's `completed`/`failed` events, which fire only after the
 * job's state moved in Redis, so a duplicate delivery whose transition BullMQ rejects (its lock
 * was lost) is never counted.
 */
export class RunMetrics {
  private readonly byQueue = new Map<string, Map<string, PerType>>();
  private readonly lateness = new Map<string, number[]>();
  private readonly active = new Map<string, number>();
  private pending = 0;

  constructor(private readonly metrics: DroverMetrics) {
    for (const m of [metrics.runsTotal, metrics.runDuration, metrics.fireLateness, metrics.workerActiveJobs]) {
      const target = m as unknown as Collectable;
      const previous = target.collect;
      // Chained, so another role sharing the registry may hook the same metric.
      target.collect = function (this: unknown) {
        flush();
        return previous?.call(this);
      };
    }
    const flush = () => this.flush();
  }

  private perType(queue: string, jobType: string): PerType {
    let types = this.byQueue.get(queue);
    if (!types) this.byQueue.set(queue, (types = new Map()));
    let t = types.get(jobType);
    if (!t) types.set(jobType, (t = { counts: new Map(), durations: [] }));
    return t;
  }

  /**
   * Exports the series of a queue this process starts consuming at 0: outcomes of every handled
   * job type, lease reclaims, active jobs. A counter that appears only at its first increment
   * hides that increment from rate()/increase(), and a panel over a series that does not exist yet
   * shows no data instead of 0.
   */
  consume(queue: string, jobTypes: readonly string[]): void {
    const { runsTotal, leaseReclaims } = this.metrics;
    for (const jobType of jobTypes) {
      for (const status of WORKER_STATUSES) runsTotal.inc({ queue, job_type: jobType, status }, 0);
    }
    leaseReclaims.inc({ queue }, 0);
    if (!this.active.has(queue)) this.active.set(queue, 0);
  }

  outcome(queue: string, jobType: string, status: RunMetricStatus, durationSeconds?: number): void {
    const t = this.perType(queue, jobType);
    t.counts.set(status, (t.counts.get(status) ?? 0) + 1);
    if (durationSeconds !== undefined) {
      t.durations.push(durationSeconds);
      if (++this.pending >= MAX_PENDING) this.flush();
    }
  }

  fireLateness(queue: string, seconds: number): void {
    let list = this.lateness.get(queue);
    if (!list) this.lateness.set(queue, (list = []));
    list.push(Math.max(0, seconds));
    if (++this.pending >= MAX_PENDING) this.flush();
  }

  activeDelta(queue: string, delta: 1 | -1): void {
    this.active.set(queue, (this.active.get(queue) ?? 0) + delta);
  }

  leaseReclaimed(queue: string): void {
    this.metrics.leaseReclaims.labels(queue).inc();
  }

  /** Moves everything recorded so far into prom-client. */
  flush(): void {
    this.pending = 0;
    const { runsTotal, runDuration, fireLateness, workerActiveJobs } = this.metrics;
    for (const [queue, types] of this.byQueue) {
      for (const [jobType, t] of types) {
        for (const [status, n] of t.counts) if (n > 0) runsTotal.inc({ queue, job_type: jobType, status }, n);
        t.counts.clear();
        if (t.durations.length) {
          const h: Histogram.Internal<'queue' | 'job_type'> = runDuration.labels(queue, jobType);
          for (const s of t.durations) h.observe(s);
          t.durations = [];
        }
      }
    }
    for (const [queue, list] of this.lateness) {
      if (!list.length) continue;
      const h = fireLateness.labels(queue);
      for (const s of list) h.observe(s);
      this.lateness.set(queue, []);
    }
    for (const [queue, n] of this.active) workerActiveJobs.set({ queue }, n);
  }
}
