import { slotsBefore, type Schedule } from '../schedule/next-fire';
import { countSlotsBetween } from './count-slots';

export interface BackfillSlots {
  /** The slots to run, ascending: the newest `cap` of those in `(fromMs, toMs]`. */
  slots: number[];
  /** Older slots in the range left out by the cap; a lower bound when `exact` is false. */
  capped: number;
  exact: boolean;
}

/**
 * The slots an operator's backfill of `(fromMs, toMs]` runs (epoch ms): every slot of `trigger` in
 * the range, at most `cap` of them — the newest, as catch-up policy `all` keeps the newest
 * `maxCatchUp` — and how many older ones the cap left out. Enumerates at most `cap` slots plus a
 * bounded count. Pure.
 */
export function backfillSlots(trigger: Schedule, fromMs: number, toMs: number, cap: number): BackfillSlots {
  const limit = Math.max(0, Math.floor(cap));
  const newestFirst: number[] = [];
  for (const slot of slotsBefore(trigger, toMs + 1)) {
    if (slot <= fromMs) return { slots: newestFirst.reverse(), capped: 0, exact: true };
    if (newestFirst.length >= limit) {
      // `slot` and everything older down to `fromMs` is left out.
      const older = countSlotsBetween(trigger, fromMs, slot);
      return { slots: newestFirst.reverse(), capped: older.count + 1, exact: older.exact };
    }
    newestFirst.push(slot);
  }
  return { slots: newestFirst.reverse(), capped: 0, exact: true };
}
