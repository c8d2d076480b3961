/** "Drover / Queue": one queue in detail, chosen by the `queue` variable. */
import { type DashboardSpec, labelVariable } from './grafana';
import { FINISHED, READY, RI, failureRatio, quantiles, stat, ts } from './queries';

const Q = 'queue="$queue"';

export const queue: DashboardSpec = {
  uid: 'drover-queue',
  title: 'Drover / Queue',
  description: 'One Drover queue in detail: state, throughput, latency and capacity.',
  variables: [labelVariable('queue', 'Queue', 'drover_queue_jobs')],
  rows: [
    {
      title: 'Now',
      panels: [
        stat({
          title: 'Backlog',
          description: 'Jobs ready to run but not yet taken (waiting + prioritized).',
          queries: [{ expr: `sum(max by (state) (drover_queue_jobs{${Q}, state=~"${READY}"}))` }],
          baseColor: 'blue',
          w: 4,
        }),
        stat({
          title: 'Active',
          description: 'Jobs running now, as counted in Redis.',
          queries: [{ expr: `max(drover_queue_jobs{${Q}, state="active"})` }],
          baseColor: 'blue',
          w: 4,
        }),
        stat({
          title: 'Delayed',
          description: 'Jobs waiting for their time: future runs and retries in backoff.',
          queries: [{ expr: `max(drover_queue_jobs{${Q}, state="delayed"})` }],
          baseColor: 'blue',
          w: 4,
        }),
        stat({
          title: 'Parked',
          description: 'Jobs that exhausted their attempts; replay or purge them.',
          queries: [{ expr: `max(drover_queue_jobs{${Q}, state="parked"})` }],
          steps: [[1, 'orange']],
          w: 4,
        }),
        stat({
          title: 'Workers',
          description: 'Worker processes consuming this queue.',
          queries: [{ expr: `max(drover_queue_workers{${Q}})` }],
          baseColor: 'red',
          steps: [[1, 'green']],
          w: 4,
        }),
        stat({
          title: 'Global ceiling',
          description: 'Cluster-wide ceiling of running jobs (0 = none).',
          queries: [{ expr: `max(drover_queue_global_concurrency{${Q}})` }],
          baseColor: 'blue',
          w: 4,
        }),
      ],
    },
    {
      title: 'Throughput',
      panels: [
        ts({
          title: 'Runs/s by status',
          description: 'Run outcomes per second in this queue.',
          queries: [{ expr: `sum by (status) (rate(drover_runs_total{${Q}}[${RI}]))`, legend: '{{status}}' }],
          unit: 'ops',
          w: 8,
        }),
        ts({
          title: 'Finished runs/s by job type',
          description: 'Runs that succeeded, failed or were parked, per second and job type.',
          queries: [
            {
              expr: `sum by (job_type) (rate(drover_runs_total{${Q}, status=~"${FINISHED}"}[${RI}]))`,
              legend: '{{job_type}}',
            },
          ],
          unit: 'ops',
          w: 8,
        }),
        ts({
          title: 'Failure ratio by job type',
          description: 'Share of finished runs that failed or were parked, per job type.',
          queries: [{ expr: failureRatio('job_type', `${Q}, `), legend: '{{job_type}}' }],
          unit: 'percentunit',
          threshold: 0.1,
          w: 8,
        }),
      ],
    },
    {
      title: 'Latency',
      panels: [
        ts({
          title: 'Run duration',
          description: 'Quantiles of one attempt’s wall time in this queue.',
          queries: quantiles('drover_run_duration_seconds', `{${Q}}`),
          unit: 's',
          w: 8,
        }),
        ts({
          title: 'Run duration p95 by job type',
          description: '95th percentile of attempt wall time per job type.',
          queries: [
            {
              expr: `histogram_quantile(0.95, sum by (job_type, le) (rate(drover_run_duration_seconds_bucket{${Q}}[${RI}])))`,
              legend: '{{job_type}}',
            },
          ],
          unit: 's',
          w: 8,
        }),
        ts({
          title: 'Fire lateness',
          description: 'Quantiles of run start minus scheduled slot for scheduled runs of this queue.',
          queries: quantiles('drover_fire_lateness_seconds', `{${Q}}`),
          unit: 's',
          threshold: 60,
          w: 8,
        }),
      ],
    },
    {
      title: 'Capacity',
      panels: [
        ts({
          title: 'Jobs by state',
          description: 'Jobs of this queue by state.',
          queries: [{ expr: `max by (state) (drover_queue_jobs{${Q}})`, legend: '{{state}}' }],
          stack: true,
          w: 8,
        }),
        ts({
          title: 'Active jobs vs global ceiling',
          description: 'Jobs running now (sum over worker processes) against the cluster-wide ceiling (dashed).',
          queries: [
            { expr: `sum(drover_worker_active_jobs{${Q}})`, legend: 'active' },
            { expr: `max(drover_queue_global_concurrency{${Q}}) > 0`, legend: 'ceiling' },
          ],
          dashed: '^ceiling$',
          w: 8,
        }),
        ts({
          title: 'Active jobs by worker',
          description: 'Jobs running now in each worker process (scrape target).',
          queries: [{ expr: `sum by (instance) (drover_worker_active_jobs{${Q}})`, legend: '{{instance}}' }],
          stack: true,
          w: 8,
        }),
        ts({
          title: 'Lease reclaims/s',
          description: 'Jobs whose lease expired (worker died or stalled) and were taken back, per second.',
          queries: [{ expr: `sum(rate(drover_lease_reclaims_total{${Q}}[${RI}]))`, legend: 'reclaims' }],
          unit: 'ops',
          w: 12,
        }),
        ts({
          title: 'Workers consuming',
          description: 'Worker processes consuming this queue, as the scheduler leader sees them.',
          queries: [{ expr: `max(drover_queue_workers{${Q}})`, legend: 'workers' }],
          w: 12,
        }),
      ],
    },
  ],
};
