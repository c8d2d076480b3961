/**
 * Metric names and label sets are a public contract (docs/observability.md): dashboards, alert rules and
 * users' queries depend on them. Labels never carry one value per run or routine.
 */
export const METRIC = {
  runsTotal: 'drover_runs_total',
  runDurationSeconds: 'drover_run_duration_seconds',
  fireLatenessSeconds: 'drover_fire_lateness_seconds',
  queueJobs: 'drover_queue_jobs',
  scheduleFiresTotal: 'drover_schedule_fires_total',
  slotsTotal: 'drover_slots_total',
  leader: 'drover_leader',
  leaderTransitionsTotal: 'drover_leader_transitions_total',
  leaseReclaimsTotal: 'drover_lease_reclaims_total',
  routines: 'drover_routines',
  workerActiveJobs: 'drover_worker_active_jobs',
  // Needed by the dashboards and alerts (docs/observability.md lists them all); same labelling rules apply.
  watchdogRepairsTotal: 'drover_watchdog_repairs_total',
  queueWorkers: 'drover_queue_workers',
  queueGlobalConcurrency: 'drover_queue_global_concurrency',
  queueConcurrency: 'drover_queue_concurrency',
  runsAwaitingApproval: 'drover_runs_awaiting_approval',
  batchesOpen: 'drover_batches_open',
  apiRequestsTotal: 'drover_api_requests_total',
  apiRequestDurationSeconds: 'drover_api_request_duration_seconds',
} as const;

/**
 * The `status` label values of `drover_runs_total`: run outcomes as counted (docs/observability.md) — not the run
 * statuses of core's model (`retried` counts a failed attempt that is retried).
 */
export const RUN_OUTCOME_LABELS = ['succeeded', 'failed', 'retried', 'parked', 'canceled', 'skipped'] as const;
export type RunMetricStatus = (typeof RUN_OUTCOME_LABELS)[number];

export const FIRE_OUTCOMES = ['enqueued', 'skipped', 'failed'] as const;
export type FireOutcome = (typeof FIRE_OUTCOMES)[number];

/** Job durations range from milliseconds to hours. */
export const RUN_DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 1800, 3600, 7200, 14400,
];

/** Fire lateness ranges from milliseconds to minutes. */
export const FIRE_LATENESS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** API answers take milliseconds; event streams are not timed (they end when the client leaves). */
export const API_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
