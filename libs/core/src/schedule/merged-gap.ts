import type { IntervalTrigger, Trigger } from '../model/trigger.schema';
import { slotsAfter } from './next-fire';

/** Where the sample of a list's merged stream starts: a fixed instant, so validation is pure and repeatable. */
const SAMPLE_FROM = Date.UTC(2026, 0, 1);
/** How many merged slots the sample walks (tens of ms for cron triggers in a zone: rare, see below). */
const SAMPLE_SLOTS = 200;

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
 * A gap (ms) below `floorMs` between two distinct slots of a `triggers` list's merged stream, as far
 * as it can be known cheaply; undefined when none was found. Exact for every pair of interval
 * triggers. With a cron trigger: every cron slot lies on a whole second, so when every interval
 * trigger does too and the floor is at most 1 s, distinct slots are at least 1 s apart and nothing
 * is walked; otherwise the first {@link SAMPLE_SLOTS} merged slots after 2026-01-01T00:00Z are (a
 * cron trigger's gaps to the others). Equal instants are one slot, never a gap. Each trigger's own
 * gaps are its own check (the fire-rate floor of a single trigger).
 */
export function mergedGapBelow(triggers: readonly Trigger[], floorMs: number): number | undefined {
  let min: number | undefined;
  const keep = (gap: number | undefined) => {
    if (gap !== undefined && (min === undefined || gap < min)) min = gap;
  };
  const intervals = triggers.filter((t): t is IntervalTrigger => t.kind === 'interval');
  for (let i = 0; i < intervals.length; i++)
    for (let j = i + 1; j < intervals.length; j++) keep(intervalPairGap(intervals[i]!, intervals[j]!));
  const wholeSeconds = intervals.every((t) => t.everyMs % 1000 === 0 && (t.offsetMs ?? 0) % 1000 === 0);
  const walk = intervals.length < triggers.length && !(wholeSeconds && floorMs <= 1000);
  if (walk && (min === undefined || min >= floorMs)) {
    let prev: number | undefined;
    let n = 0;
    for (const at of slotsAfter({ triggers }, SAMPLE_FROM)) {
      if (prev !== undefined) keep(at - prev);
      prev = at;
      if (++n >= SAMPLE_SLOTS) break;
    }
  }
  return min !== undefined && min < floorMs ? min : undefined;
}
