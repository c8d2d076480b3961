import type { Trigger } from '../model/trigger.schema';
import { fromWallMs, toWallMs, zoneOffsetMs } from '../time/time-zone';
import { cronNamesWall } from './cron-schedule';
import type { Calendar } from '../model/calendar.schema';
import { exclusionOf } from './exclusion';
import { plannedStart } from './jitter';
import { MAX_ENUMERATED_SLOTS, scheduledSlotsAfter, scheduleTriggers, type Schedule } from './next-fire';
import { operatorSkipReason } from './operator-skip';

/**
 * How a daylight-saving transition moved a fire: `gap` — its wall time did not exist (spring
 * forward), so it fires at the first instant after the gap; `overlap` — its wall time happens
 * twice (fall back), and it fires once, at the first.
 */
export type DstShift = 'gap' | 'overlap';

export interface PreviewFire {
  /** Epoch ms. */
  at: number;
  /** For a routine with a `triggers` list: the trigger it is attributed to (its name, else its index). */
  trigger?: string;
  /** The fire's local time in its trigger's zone, ISO 8601 with its offset. */
  local: string;
  dst?: DstShift;
  /** When its run is planned to start, if later than the slot (the routine's `jitterMs`; see `plannedStart`). */
  start?: number;
  /** Why this slot will not run, as it will be recorded: `excluded: <calendar>` or `skipped-by-operator: by <who>`. */
  skipped?: string;
}

/** What of a routine marks upcoming fires that will not run: its exclusions and the operators' skips. */
export interface PreviewLimits {
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
 * The next `n` fires of `s` (a trigger or a routine) strictly after `fromMs`, with their local time
 * in the zone of the trigger each is attributed to (UTC for interval and once triggers), that
 * trigger for a `triggers` list, and a marker on fires a DST transition shifted. A routine's slots
 * lie within its `startAt`/`endAt`; with `limits` those an exclusion or an operator skip will skip
 * are marked `skipped` (listed, not left out: the slot exists). Pure.
 */
export function previewFires(s: Schedule, fromMs: number, n: number, limits: PreviewLimits = {}): PreviewFire[] {
  const limit = Math.max(0, Math.min(Math.floor(n), MAX_ENUMERATED_SLOTS));
  const triggers = scheduleTriggers(s);
  const out: PreviewFire[] = [];
  if (limit === 0 || triggers.length === 0) return out;
  for (const slot of scheduledSlotsAfter(s, fromMs)) {
    const { trigger } = triggers.find((t) => t.label === slot.trigger)!;
    const tz = trigger.kind === 'cron' ? (trigger.tz ?? 'UTC') : 'UTC';
    const dst = dstShiftOf(trigger, slot.at);
    const label = slot.trigger !== undefined && { trigger: slot.trigger };
    const skip = limits.skips?.get(slot.at);
    const excluded = 'kind' in s ? undefined : exclusionOf({ ...s, exclude: limits.exclude }, slot.at);
    const skipped = excluded ?? (skip && operatorSkipReason(skip));
    out.push({ at: slot.at, ...label, local: localIso(slot.at, tz), ...(dst && { dst }), ...(skipped && { skipped }) });
    if (out.length >= limit) break;
  }
  return out;
}

/** `fires` of routine `def` with the planned start of each jittered one (the slot stays `at`). Pure. */
export function withPlannedStarts(fires: PreviewFire[], def: { name: string; jitterMs?: number }): PreviewFire[] {
  return fires.map((f) => {
    const start = plannedStart(def, f.at);
    return start > f.at ? { ...f, start } : f;
  });
}
