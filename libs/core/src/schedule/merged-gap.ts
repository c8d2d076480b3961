import type { IntervalTrigger, Trigger } from '../model/trigger.schema';
import { slotsAfter } from './next-fire';

/** Where the sample of a list's merged stream starts: a fixed instant, so validation is pure and repeatable. */
const SAMPLE_FROM = Date.UTC(2026, 0, 1);
/** How many merged slots the sample walks (a few ms of work for eight cron triggers). */
const SAMPLE_SLOTS = 1000;

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/**
 * The exact smallest distance between two interval grids' points that are not shared: both grids
 * step by multiples of gcd(everyA, everyB), so their points differ by `(offA - offB) mod g` plus
 * multiples of g. Undefined when every point of one near the other is shared (the difference is 0).
 */
function intervalPairGap(a: IntervalTrigger, b: IntervalTrigger): number | undefined {
  const g = gcd(a.everyMs, b.everyMs);
  const d = ((((a.offsetMs ?? 0) - (b.offsetMs ?? 0)) % g) + g) % g;
  return d === 0 ? undefined : Math.min(d, g - d);
}

/**
 * The smallest gap (ms) between two distinct slots of a `triggers` list's merged stream, as far as
 * it can be known cheaply: exact for every pair of interval triggers, and over the first
 * {@link SAMPLE_SLOTS} merged slots after 2026-01-01T00:00Z for the rest (a cron trigger's gaps to
 * the others). Equal instants are one slot, never a gap. Undefined when no two distinct slots were
 * seen. Each trigger's own gaps are its own check (the fire-rate floor of a single trigger).
 */
export function mergedMinGapMs(triggers: readonly Trigger[]): number | undefined {
  let min: number | undefined;
  const keep = (gap: number | undefined) => {
    if (gap !== undefined && (min === undefined || gap < min)) min = gap;
  };
  const intervals = triggers.filter((t): t is IntervalTrigger => t.kind === 'interval');
  for (let i = 0; i < intervals.length; i++)
    for (let j = i + 1; j < intervals.length; j++) keep(intervalPairGap(intervals[i]!, intervals[j]!));
  if (intervals.length < triggers.length) {
    let prev: number | undefined;
    let n = 0;
    for (const at of slotsAfter({ triggers }, SAMPLE_FROM)) {
      if (prev !== undefined) keep(at - prev);
      prev = at;
      if (++n >= SAMPLE_SLOTS) break;
    }
  }
  return min;
}
