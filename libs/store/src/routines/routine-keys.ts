import type { DroverKeys } from '@drover/redis';

/** Names of the keys Drover keeps per routine (all under the `{core}` hash tag). */
export const routineKeys = {
  /** Hash of every routine definition, name → record JSON. */
  definitions: (k: DroverKeys) => k.core('routines'),
  /** Per-routine scheduling state: cursor, launcher, version, armed runs. */
  state: (k: DroverKeys, name: string) => k.core('rstate', name),
  /** One claim per slot (see claimSlot-3.lua). */
  slot: (k: DroverKeys, name: string, slot: number) => k.core('slot', name, slot),
  /** Armed runs of deleted routines, waiting for the leader to withdraw them. */
  disarm: (k: DroverKeys) => k.core('disarm'),
  /** Channel announcing definition changes (the leader reconciles and disarms at once). */
  changes: (k: DroverKeys) => k.core('routines-changed'),
  recentRuns: (k: DroverKeys, name: string) => k.core('routine-runs', name),
  openRuns: (k: DroverKeys, name: string) => k.core('routine-open', name),
  /** Run statistics of one routine for one hour (see core's run-stats), expiring after the longest window. */
  stats: (k: DroverKeys, name: string, hourStart: number) => k.core('rstats', name, hourStart),
};
