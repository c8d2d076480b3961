import { MAX_ENUMERATED_SLOTS, singleTrigger, slotsBetween, type Schedule } from '../schedule/next-fire';
import { slotBounds } from '../schedule/slot-bounds';

/**
 * How many slots of `trigger` lie strictly between `fromMs` and `toMs` (epoch ms). Exact and O(1) for
 * `interval`; for other kinds it enumerates at most {@link MAX_ENUMERATED_SLOTS} slots and reports
 * `exact: false` (the count is then a lower bound) when there are more. A routine's `startAt`/`endAt`
 * bound the range.
 */
export function countSlotsBetween(s: Schedule, from: number, to: number): { count: number; exact: boolean } {
  const bounds = 'kind' in s ? undefined : slotBounds(s);
  const fromMs = bounds?.startMs === undefined ? from : Math.max(from, bounds.startMs - 1);
  const toMs = bounds?.endMs === undefined ? to : Math.min(to, bounds.endMs + 1);
  const trigger = singleTrigger(s);
  if (toMs - fromMs <= 1) return { count: 0, exact: true };
  if (trigger?.kind === 'interval') {
    const offset = trigger.offsetMs ?? 0;
    const firstK = Math.floor((fromMs - offset) / trigger.everyMs) + 1;
    const lastK = Math.ceil((toMs - offset) / trigger.everyMs) - 1;
    return { count: Math.max(0, lastK - firstK + 1), exact: true };
  }
  const { slots, truncated } = slotsBetween(s, fromMs, toMs - 1, MAX_ENUMERATED_SLOTS);
  return { count: slots.length, exact: !truncated };
}
