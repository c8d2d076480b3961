/** "Drover / Overview": the whole cluster on one page (docs/observability.md describes every row). */
import { type DashboardSpec } from './grafana';
import { READY, RI, apiErrorRatio, failureRatio, quantiles, stat, ts } from './queries';

const QUEUE_LINK = {
  title: 'Open queue ${__field.labels.queue}',
  url: '/d/drover-queue/drover-queue?var-queue=${__field.labels.queue}&${datasource:queryparam}&${__url_time_range}',
};

export const overview: DashboardSpec = {
  uid: 'drover-overview',
  title: 'Drover / Overview',
  description: 'Runs, latency, queues, capacity, leadership and the management API of a Drover cluster.',
  rows: [
    {
      title: 'Runs',
      panels: [
        ts({
          title: 'Runs/s by status',
          description: 'Run outcomes per second across all queues (rate of drover_runs_total).',
          queries: [{ expr: `sum by (status) (rate(drover_runs_total[${RI}]))`, legend: '{{status}}' }],
          unit: 'ops',
          w: 9,
        }),
        ts({
          title: 'Failure ratio by queue',
          description:
            'Share of finished runs that failed or were parked; retried attempts, cancellations and skips are ' +
            'not counted. The dashed line is the DroverFailureRatioHigh threshold.',
          queries: [{ expr: failureRatio('queue', ''), legend: '{{queue}}' }],
          unit: 'percentunit',
          threshold: 0.1,
          links: [QUEUE_LINK],
          w: 8,
        }),
        ts({
          title: 'Schedule fires/s by outcome',
          description: 'Routine fires per second: enqueued, skipped by policy, or failed to enqueue.',
          queries: [{ expr: `sum by (outcome) (rate(drover_schedule_fires_total[${RI}]))`, legend: '{{outcome}}' }],
          unit: 'ops',
          w: 7,
        }),
      ],
    },
    {
      title: 'Latency',
      panels: [
        ts({
          title: 'Run duration',
          description: 'Quantiles of one attempt’s wall time, all queues and job types.',
          queries: quantiles('drover_run_duration_seconds'),
          unit: 's',
          w: 12,
        }),
        ts({
          title: 'Fire lateness',
          description:
            'Quantiles of run start minus scheduled slot for scheduled runs. The dashed line is the ' +
            'DroverFireLatenessHigh threshold (p99).',
          queries: quantiles('drover_fire_lateness_seconds'),
          unit: 's',
          threshold: 60,
          w: 12,
        }),
      ],
    },
    {
      title: 'Queues',
      panels: [
        ts({
          title: 'Jobs by state',
          description: 'Jobs in every queue by state, as the scheduler leader counts them in Redis.',
          queries: [{ expr: 'sum by (state) (max by (queue, state) (drover_queue_jobs))', legend: '{{state}}' }],
          stack: true,
          w: 9,
        }),
        ts({
          title: 'Backlog by queue',
          description: 'Jobs ready to run but not yet taken (waiting + prioritized), per queue.',
          queries: [
            {
              expr: `sum by (queue) (max by (queue, state) (drover_queue_jobs{state=~"${READY}"}))`,
              legend: '{{queue}}',
            },
          ],
          links: [QUEUE_LINK],
          w: 9,
        }),
        stat({
          title: 'Parked jobs',
          description: 'Jobs that exhausted their attempts and wait for an operator to replay or purge them.',
          queries: [{ expr: 'sum(max by (queue) (drover_queue_jobs{state="parked"}))' }],
          steps: [[1, 'orange']],
          w: 6,
        }),
        ts({
          title: 'Parked jobs by queue',
          description: 'Parked jobs per queue.',
          queries: [{ expr: 'max by (queue) (drover_queue_jobs{state="parked"})', legend: '{{queue}}' }],
          links: [QUEUE_LINK],
          w: 12,
        }),
        ts({
          title: 'Lease reclaims/s by queue',
          description: 'Jobs whose lease expired (worker died or stalled) and were taken back, per second.',
          queries: [{ expr: `sum by (queue) (rate(drover_lease_reclaims_total[${RI}]))`, legend: '{{queue}}' }],
          unit: 'ops',
          w: 12,
        }),
      ],
    },
    {
      title: 'Capacity',
      panels: [
        ts({
          title: 'Active jobs vs global ceiling',
          description:
            'Jobs running now, summed over worker processes, against the queue’s cluster-wide ceiling ' +
            '(dashed; queues without a ceiling have no line).',
          queries: [
            { expr: 'sum by (queue) (drover_worker_active_jobs)', legend: '{{queue}} active' },
            { expr: 'max by (queue) (drover_queue_global_concurrency) > 0', legend: '{{queue}} ceiling' },
          ],
          dashed: '.* ceiling$',
          w: 12,
        }),
        ts({
          title: 'Workers per queue',
          description: 'Worker processes consuming each queue, as the scheduler leader sees them.',
          queries: [{ expr: 'max by (queue) (drover_queue_workers)', legend: '{{queue}}' }],
          w: 6,
        }),
        stat({
          title: 'Workers up',
          description: 'Worker scrape targets answering (`up` of jobs whose name contains "worker").',
          queries: [{ expr: 'sum(up{job=~".*worker.*"})' }],
          baseColor: 'red',
          steps: [[1, 'green']],
          w: 3,
        }),
        stat({
          title: 'Schedulers up',
          description: 'Scheduler scrape targets answering (`up` of jobs whose name contains "scheduler").',
          queries: [{ expr: 'sum(up{job=~".*scheduler.*"})' }],
          baseColor: 'red',
          steps: [
            [1, 'orange'],
            [2, 'green'],
          ],
          w: 3,
        }),
      ],
    },
    {
      title: 'Scheduler',
      panels: [
        stat({
          title: 'Leaders',
          description: 'Schedulers reporting drover_leader = 1; anything but 1 for long raises an alert.',
          queries: [{ expr: 'sum(drover_leader)' }],
          baseColor: 'red',
          steps: [
            [1, 'green'],
            [2, 'red'],
          ],
          w: 4,
        }),
        ts({
          title: 'Leader by scheduler',
          description: 'drover_leader per scheduler scrape target: 1 while it holds the lease.',
          queries: [{ expr: 'max by (instance) (drover_leader)', legend: '{{instance}}' }],
          w: 8,
        }),
        stat({
          title: 'Leader transitions',
          description: 'Leadership gained or lost in the selected time range, all schedulers (increase).',
          queries: [{ expr: 'sum(increase(drover_leader_transitions_total[$__range]))' }],
          steps: [[3, 'orange']],
          w: 4,
        }),
        stat({
          title: 'Watchdog repairs',
          description: 'Overdue schedules the leader watchdog repaired in the selected time range (increase).',
          queries: [{ expr: 'sum(increase(drover_watchdog_repairs_total[$__range]))' }],
          steps: [[1, 'orange']],
          w: 4,
        }),
        stat({
          title: 'Active routines',
          description: 'Routines with status active.',
          queries: [{ expr: 'max(drover_routines{status="active"})' }],
          baseColor: 'blue',
          w: 4,
        }),
        ts({
          title: 'Routines by status',
          description: 'Routines by status (active, paused, archived).',
          queries: [{ expr: 'max by (status) (drover_routines)', legend: '{{status}}' }],
          w: 12,
        }),
      ],
    },
    {
      title: 'API',
      panels: [
        ts({
          title: 'API requests/s by route',
          description:
            'Management API requests per second by route template and method (drover_api_requests_total; ' +
            '`unmatched` is every path no route matched).',
          queries: [
            {
              expr: `sum by (method, route) (rate(drover_api_requests_total[${RI}]))`,
              legend: '{{method}} {{route}}',
            },
          ],
          unit: 'ops',
          w: 9,
        }),
        ts({
          title: 'API error ratio',
          description:
            'Share of API answers that were client errors (4xx: bad input, auth, conflicts, rate limits) and ' +
            'server errors (5xx: a bug, or Redis unreachable; any 5xx deserves a look).',
          queries: [
            { expr: apiErrorRatio('5..'), legend: '5xx' },
            { expr: apiErrorRatio('4..'), legend: '4xx' },
          ],
          unit: 'percentunit',
          w: 7,
        }),
        ts({
          title: 'API latency p95 by route',
          description:
            '95th percentile of API request duration per route template. Event streams (/events) count until ' +
            'they end, so their line is how long consoles stay connected, not a slow answer.',
          queries: [
            {
              expr: `histogram_quantile(0.95, sum by (route, le) (rate(drover_api_request_duration_seconds_bucket[${RI}])))`,
              legend: '{{route}}',
            },
          ],
          unit: 's',
          w: 8,
        }),
      ],
    },
    {
      title: 'Processes',
      panels: [
        ts({
          title: 'CPU',
          description: 'CPU seconds per second of every Drover process (Node.js default metrics).',
          queries: [
            { expr: `sum by (job, instance) (rate(process_cpu_seconds_total[${RI}]))`, legend: '{{instance}}' },
          ],
          w: 8,
        }),
        ts({
          title: 'Resident memory',
          description: 'Resident set size of every Drover process.',
          queries: [{ expr: 'max by (job, instance) (process_resident_memory_bytes)', legend: '{{instance}}' }],
          unit: 'bytes',
          w: 8,
        }),
        ts({
          title: 'Event loop lag p99',
          description: 'Node.js event loop delay, 99th percentile, per process.',
          queries: [{ expr: 'max by (job, instance) (nodejs_eventloop_lag_p99_seconds)', legend: '{{instance}}' }],
          unit: 's',
          w: 8,
        }),
      ],
    },
  ],
};
