import type { Queue } from '@drover/core';
import type { DroverMetrics } from '@drover/metrics';

/** Tunables of the scheduler role; defaults suit production, tests shorten them. */
export interface SchedulerOptions {
  /** How often the leader looks for overdue routines. */
  watchdogEveryMs: number;
  /** How late a slot may be before the watchdog calls it lost. */
  watchdogToleranceMs: number;
  /** Full reconcile period (changes are also reconciled at once through pub/sub). */
  reconcileEveryMs: number;
  gaugesEveryMs: number;
  /** Fires processed at once by this replica. */
  fireConcurrency: number;
  /** Stores the bundle's queue policies (the worker runtime's queue registry). */
  applyQueues?: (queues: Queue[]) => Promise<void>;
  /** Sets drover_queue_* gauges (leader only). */
  exportQueueGauges?: (metrics: DroverMetrics) => Promise<void>;
}

export const SCHEDULER_OPTIONS = Symbol('drover.scheduler-options');

export const DEFAULT_SCHEDULER_OPTIONS: SchedulerOptions = {
  watchdogEveryMs: 5_000,
  watchdogToleranceMs: 5_000,
  reconcileEveryMs: 60_000,
  gaugesEveryMs: 5_000,
  fireConcurrency: 50,
};
