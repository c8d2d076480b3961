/**
 * Default `misfireGraceMs`: how late (ms) a slot may be dispatched and still run normally. Long
 * enough that a replica crash, a leader failover or a watchdog repair (seconds) never turns into a
 * catch-up; short enough that a real outage is handled by the catch-up policy. (Quartz calls this
 * the misfire threshold, with the same default.)
 */
export const DEFAULT_MISFIRE_GRACE_MS = 60_000;
