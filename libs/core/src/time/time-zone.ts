/**
 * Time-zone arithmetic on epoch milliseconds, built on `Intl` only.
 * All functions are pure; formatters are memoised per zone (a cache, not state).
 */

import { WALL_CLOCK_FORMAT, wallFields } from './wall-fields';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { ...WALL_CLOCK_FORMAT, timeZone: tz });
    formatters.set(tz, f);
  }
  return f;
}

/**
 * True when `tz` is an IANA time-zone name `Intl` knows (e.g. `Europe/Berlin`, `UTC`).
 */
export function isValidTimeZone(tz: string): boolean {
  if (tz.trim() === '') return false;
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

/**
 * UTC offset of zone `tz` at instant `epochMs`, in milliseconds (local = UTC + offset).
 * Whole seconds; throws `RangeError` for an unknown zone.
 */
export function zoneOffsetMs(epochMs: number, tz: string): number {
  if (tz === 'UTC') return 0;
  const whole = Math.floor(epochMs / 1000) * 1000;
  const [year, month, day, hour, minute, second] = wallFields(formatter(tz), new Date(whole));
  const asUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC maps years 0-99 to 1900-1999; correct for the (theoretical) early years.
  const fixed = year >= 0 && year < 100 ? new Date(asUtc).setUTCFullYear(year) : asUtc;
  return fixed - whole;
}

/** Wall-clock time of `epochMs` in `tz`, expressed as a "fake UTC" epoch value (ms). */
export function toWallMs(epochMs: number, tz: string): number {
  return epochMs + zoneOffsetMs(epochMs, tz);
}

const PROBE_MS = 15 * 3_600_000;

/**
 * Resolve a wall-clock time (fake-UTC ms) in `tz` to a real instant (epoch ms), by the DST policy:
 * - unique wall time → that instant;
 * - repeated wall time (fall-back) → the FIRST occurrence (`ambiguous: true`);
 * - non-existent wall time (spring-forward gap) → the first instant after the gap, i.e. the transition
 *   instant (`gap: true`).
 * Invariant: non-decreasing in `wallMs`.
 */
export function fromWallMs(wallMs: number, tz: string): { epochMs: number; gap: boolean; ambiguous: boolean } {
  const offsets = new Set([zoneOffsetMs(wallMs - PROBE_MS, tz), zoneOffsetMs(wallMs + PROBE_MS, tz)]);
  const hits = [...offsets].map((o) => wallMs - o).filter((t) => zoneOffsetMs(t, tz) === wallMs - t);
  if (hits.length > 0) {
    return { epochMs: Math.min(...hits), gap: false, ambiguous: hits.length > 1 };
  }
  // In a gap: the first valid instant is the transition between the two candidate instants.
  const cands = [...offsets].map((o) => wallMs - o);
  return { epochMs: offsetTransition(Math.min(...cands), Math.max(...cands), tz), gap: true, ambiguous: false };
}

/**
 * The first whole second in `(loMs, hiMs]` whose UTC offset in `tz` differs from the offset at `loMs`
 * (binary search; `hiMs` must already have a different offset). Returns epoch ms.
 */
export function offsetTransition(loMs: number, hiMs: number, tz: string): number {
  let lo = Math.floor(loMs / 1000);
  let hi = Math.ceil(hiMs / 1000);
  const before = zoneOffsetMs(lo * 1000, tz);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (zoneOffsetMs(mid * 1000, tz) === before) lo = mid;
    else hi = mid;
  }
  return hi * 1000;
}
