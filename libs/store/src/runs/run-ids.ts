import { isManualSource, toBullmqPriority, type RunSource } from '@drover/core';

/**
 * The id of the run that replays parked run `parkedId`, parked at `parkedAt` (epoch ms). The same
 * parked instance always yields the same id, so a replay retried after a crash (or clicked twice)
 * creates one run; the id shows its lineage, e.g. `r-nightly-1767225600000.rmjxq0k1c`.
 */
export function replayRunId(parkedId: string, parkedAt: number): string {
  return `${parkedId}.r${Math.max(0, Math.floor(parkedAt)).toString(36)}`;
}

/** True for the rank most runs have: not started by a person, priority value 0 (medium). */
export function isDefaultRank(source: RunSource, priority: number): boolean {
  return !isManualSource(source) && priority === 0;
}

/** Width of one band of BullMQ priorities, as core's `toBullmqPriority` maps [-1000, 1000] to 1..2001. */
const BAND = 2001;

/**
 * BullMQ priority (1 first) of a run: runs started by a person (manual trigger, replay) take the
 * first band and everything else the second, each ordered by core's priority value (higher first),
 * so a manual run overtakes any scheduled one (docs/core.md, "Priority order").
 */
export function bullPriorityFor(source: RunSource, priority: number): number {
  return (isManualSource(source) ? 0 : BAND) + toBullmqPriority(priority);
}

/** Inverse of {@link bullPriorityFor}: core's priority value (higher first) of a BullMQ priority. */
export function priorityValueOfBull(bullPriority: number): number {
  const inBand = bullPriority > BAND ? bullPriority - BAND : bullPriority;
  return 1001 - inBand;
}
