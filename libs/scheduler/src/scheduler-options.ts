import { DEFAULT_ARM_LEAD_MS, DEFAULT_SCHEDULE_HORIZON_MS } from '@drover/config';

/** Tunables of the scheduler role; defaults suit production, tests shorten them. */
export interface SchedulerOptions {
  /** How often the leader looks for overdue routines. */
  watchdogEveryMs: number;
  /** How late a slot may be before the watchdog calls it lost. */
  watchdogToleranceMs: number;
  /** How often the leader reconciles what the change log holds (changes are also reconciled at once through pub/sub). */
  reconcileEveryMs: number;
  /**
   * How often the leader reads every routine: a full reconcile (which also removes a schedule a
   * stale leader left behind) and a rebuild of the watchdog's index.
   */
  fullPassEveryMs: number;
  gaugesEveryMs: number;
  /** Fires processed at once by this replica. */
  fireConcurrency: number;
  /**
   * How long before its slot an armed run is released to the workers (DROVER_ARM_LEAD_MS): a worker
   * takes it then and starts it on its own timer at the slot, so BullMQ's promotion and the fetch
   * are done before the slot instead of after it.
   */
  armLeadMs: number;
  /**
   * How far ahead a routine's Job Schedulers are kept in BullMQ (DROVER_SCHEDULE_HORIZON_MS): one whose next slot is further off is
   * entered in `{core}:schedules-later` and gets them this long before that slot (each costs a
   * BullMQ script and ~1.4 KB, which a routine firing next month need not pay today).
   */
  scheduleHorizonMs: number;
}

export const SCHEDULER_OPTIONS = Symbol('drover.scheduler-options');

export const DEFAULT_SCHEDULER_OPTIONS: SchedulerOptions = {
  watchdogEveryMs: 1_000,
  watchdogToleranceMs: 3_000,
  reconcileEveryMs: 60_000,
  fullPassEveryMs: 3_600_000,
  gaugesEveryMs: 5_000,
  fireConcurrency: 200,
  armLeadMs: DEFAULT_ARM_LEAD_MS,
  scheduleHorizonMs: DEFAULT_SCHEDULE_HORIZON_MS,
};
