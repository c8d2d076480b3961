import type { PriorityName } from '../model/priority-name';
import type { Priority } from '../model/routine.schema';
import type { RunSource } from '../run/run-status';

/** Numeric value of each named priority; a higher value is served first. Numbers may be used directly. */
export const PRIORITY_VALUES: Readonly<Record<PriorityName, number>> = { low: -10, medium: 0, high: 10 };

/** The numeric priority (higher first): `low` -10, `medium` 0, `high` 10, or the number itself. */
export function priorityValue(p: Priority | undefined): number {
  if (p === undefined) return PRIORITY_VALUES.medium;
  return typeof p === 'number' ? p : PRIORITY_VALUES[p];
}

/** Map a priority value in [-1000, 1000] to BullMQ's scale (1 = first … 2001 = last), clamping outside values. */
export function toBullmqPriority(value: number): number {
  return 1001 - Math.max(-1000, Math.min(1000, Math.round(value)));
}

/** Sources started by a person (manual trigger, operator replay): they go before scheduled work. */
export function isManualSource(source: RunSource): boolean {
  return source === 'manual' || source === 'replay';
}

/** A piece of work competing for a slot in a queue. Times are epoch ms. */
export interface WorkItem {
  id: string;
  manual: boolean;
  priority: number;
  /** When the work became ready (its slot, or when a retry became eligible). */
  readyAt: number;
  depth?: number;
  emphasis?: number;
}

/**
 * Weighted staleness `max(0, now - readyAt) × (depth + 1)^(depthWeight × emphasis)`, in ms; plain staleness when
 * the item declares neither `depth` nor `emphasis` (missing `depth` counts as 0, missing `emphasis` as 1).
 */
export function weightedStaleness(item: WorkItem, now: number, depthWeight = 1): number {
  const staleness = Math.max(0, now - item.readyAt);
  if (staleness === 0 || (item.depth === undefined && item.emphasis === undefined)) return staleness;
  return staleness * ((item.depth ?? 0) + 1) ** (depthWeight * (item.emphasis ?? 1));
}

/**
 * A total order for competing work at `now`: manual first, then higher priority, then higher weighted
 * staleness, then earlier `readyAt`, then smaller `id`. Returns a comparator for `Array.prototype.sort`.
 */
export function compareWork(now: number, depthWeight = 1): (a: WorkItem, b: WorkItem) => number {
  return (a, b) => {
    if (a.manual !== b.manual) return a.manual ? -1 : 1;
    if (a.priority !== b.priority) return a.priority > b.priority ? -1 : 1;
    const wa = weightedStaleness(a, now, depthWeight);
    const wb = weightedStaleness(b, now, depthWeight);
    if (wa !== wb) return wa > wb ? -1 : 1;
    if (a.readyAt !== b.readyAt) return a.readyAt < b.readyAt ? -1 : 1;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
}
