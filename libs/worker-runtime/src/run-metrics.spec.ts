import { DroverMetrics } from '@drover/metrics';
import { RunMetrics } from './run-metrics';

describe('RunMetrics', () => {
  it('reaches the registry when it is read, once per recorded event', async () => {
    const metrics = new DroverMetrics({ defaultMetrics: false });
    const runs = new RunMetrics(metrics);
    runs.outcome('q', 'noop', 'succeeded', 0.01);
    runs.outcome('q', 'noop', 'succeeded', 0.02);
    runs.outcome('q', 'noop', 'parked', 0.5);
    runs.fireLateness('q', 1.5);
    runs.activeDelta('q', 1);
    runs.activeDelta('q', 1);
    runs.activeDelta('q', -1);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/drover_runs_total\{queue="q",job_type="noop",status="succeeded"\} 2/);
    expect(text).toMatch(/drover_runs_total\{queue="q",job_type="noop",status="parked"\} 1/);
    expect(text).toMatch(/drover_run_duration_seconds_count\{queue="q",job_type="noop"\} 3/);
    expect(text).toMatch(/drover_fire_lateness_seconds_count\{queue="q"\} 1/);
    expect(text).toMatch(/drover_worker_active_jobs\{queue="q"\} 1/);
    // A second read adds nothing.
    expect(await metrics.registry.metrics()).toMatch(/status="succeeded"\} 2/);
  });

  it('exports a consumed queue at 0 before any run, for every handled job type', async () => {
    const metrics = new DroverMetrics({ defaultMetrics: false });
    const runs = new RunMetrics(metrics);
    runs.consume('q', ['noop', 'sleep']);
    const text = await metrics.registry.metrics();
    for (const jobType of ['noop', 'sleep']) {
      for (const status of ['succeeded', 'retried', 'parked', 'canceled']) {
        expect(text).toContain(`drover_runs_total{queue="q",job_type="${jobType}",status="${status}"} 0\n`);
      }
    }
    expect(text).not.toMatch(/status="(failed|skipped)"/);
    expect(text).toContain('drover_lease_reclaims_total{queue="q"} 0\n');
    expect(text).toContain('drover_worker_active_jobs{queue="q"} 0\n');
  });

  it('keeps what was counted when a queue is consumed again (a replaced consumer)', async () => {
    const metrics = new DroverMetrics({ defaultMetrics: false });
    const runs = new RunMetrics(metrics);
    runs.consume('q', ['noop']);
    runs.outcome('q', 'noop', 'succeeded', 0.01);
    runs.activeDelta('q', 1);
    runs.leaseReclaimed('q');
    await metrics.registry.metrics();
    runs.consume('q', ['noop']);
    const text = await metrics.registry.metrics();
    expect(text).toContain('drover_runs_total{queue="q",job_type="noop",status="succeeded"} 1\n');
    expect(text).toContain('drover_lease_reclaims_total{queue="q"} 1\n');
    expect(text).toContain('drover_worker_active_jobs{queue="q"} 1\n');
  });

  it('keeps a collect hook someone else put on the same metric', async () => {
    const metrics = new DroverMetrics({ defaultMetrics: false });
    let theirs = 0;
    (metrics.runsTotal as unknown as { collect: () => void }).collect = () => void theirs++;
    const runs = new RunMetrics(metrics);
    runs.outcome('q', 'noop', 'retried');
    await metrics.runsTotal.get();
    expect(theirs).toBe(1);
    expect((await metrics.runsTotal.get()).values).toEqual([
      expect.objectContaining({ value: 1, labels: { queue: 'q', job_type: 'noop', status: 'retried' } }),
    ]);
  });
});
