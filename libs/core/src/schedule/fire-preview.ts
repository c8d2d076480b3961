import type { Trigger } from '../model/trigger.schema';
import { fromWallMs, toWallMs, zoneOffsetMs } from '../time/time-zone';
import { cronNamesWall } from './cron-schedule';
import type { Calendar } from '../model/calendar.schema';
import { exclusionOf } from './exclusion';
import { preview } from './next-fire';
import { operatorSkipReason } from './operator-skip';
import { slotBounds } from './slot-bounds';

/**
 * How a daylight-saving transition moved a fire: `gap` — its wall time did not exist (spring
 * forward), so it fires at the first instant after the gap; `overlap` — its wall time happens
 * twice (fall back), and it fires once, at the first.
 */
export type DstShift = 'gap' | 'overlap';

export interface PreviewFire {
  /** Epoch ms. */
  at: number;
  /** The fire's local time in the trigger's zone, ISO 8601 with its offset. */
  local: string;
  dst?: DstShift;
  /** Why this slot will not run, as it will be recorded: `excluded: <calendar>` or `skipped-by-operator: by <who>`. */
  skipped?: string;
}

/** What of a routine shapes its upcoming fires besides the trigger: bounds, exclusions, operator skips. */
export interface PreviewLimits {
  startAt?: string;
  endAt?: string;
  exclude?: readonly (string | Calendar)[];
  skips?: ReadonlyMap<number, { by: string }>;
}

const pad = (n: number) => String(Math.abs(n)).padStart(2, '0');

/** `epochMs` as local ISO 8601 in `tz` with its offset, e.g. `2026-03-29T03:00:00.000+02:00`. */
export function localIso(epochMs: number, tz: string): string {
  const offsetMin = Math.round(zoneOffsetMs(epochMs, tz) / 60_000);
  const wall = new Date(toWallMs(epochMs, tz)).toISOString().slice(0, -1);
  const sign = offsetMin < 0 ? '-' : '+';
  return `${wall}${sign}${pad(Math.trunc(offsetMin / 60))}:${pad(offsetMin % 60)}`;
}

/** The DST shift of cron fire `at`, if any (see {@link DstShift}). */
function dstShiftOf(trigger: Trigger, at: number): DstShift | undefined {
  if (trigger.kind !== 'cron' || !trigger.tz || trigger.tz === 'UTC') return undefined;
  const wall = toWallMs(at, trigger.tz);
  if (fromWallMs(wall, trigger.tz).ambiguous) return 'overlap';
  // A fire at a wall time the expression does not name was moved there from a gap.
  return cronNamesWall(trigger, wall) ? undefined : 'gap';
}

/**
 * The next `n` fires of `trigger` strictly after `fromMs`, with their local time in the trigger's
 * zone (UTC for interval and once triggers) and a marker on fires a DST transition shifted. With
 * `limits` (the routine): only slots within `startAt`/`endAt`, and those an exclusion or an
 * operator skip will skip marked `skipped` (listed, not left out: the slot exists). Pure.
 */
export function previewFires(trigger: Trigger, fromMs: number, n: number, limits: PreviewLimits = {}): PreviewFire[] {
  const tz = trigger.kind === 'cron' ? (trigger.tz ?? 'UTC') : 'UTC';
  return preview({ trigger }, fromMs, n, slotBounds(limits)).map((at) => {
    const dst = dstShiftOf(trigger, at);
    const skip = limits.skips?.get(at);
    const skipped = exclusionOf({ trigger, exclude: limits.exclude }, at) ?? (skip && operatorSkipReason(skip));
    return { at, local: localIso(at, tz), ...(dst && { dst }), ...(skipped && { skipped }) };
  });
}
