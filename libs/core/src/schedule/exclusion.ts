import type { Calendar } from '../model/calendar.schema';
import type { Trigger } from '../model/trigger.schema';
import { toWallMs } from '../time/time-zone';
import { cronNamesWall } from './cron-schedule';
import { cronFields } from '../model/cron-expression';

/** What {@link exclusionOf} reads of a routine: its exclusions and the zone of its trigger(s). */
export interface Excludable {
  trigger?: Trigger;
  triggers?: readonly Trigger[];
  exclude?: readonly (string | Calendar)[];
}

/** The zone a calendar without its own `tz` is read in: the routine's (first) cron trigger's, else UTC. */
function routineZone(routine: Excludable): string {
  const cron = [routine.trigger, ...(routine.triggers ?? [])].find((t) => t?.kind === 'cron');
  return cron?.kind === 'cron' ? (cron.tz ?? 'UTC') : 'UTC';
}

/** Whether `calendar` holds instant `slot`: its local date listed, or its local minute named by the pattern. */
export function calendarHolds(calendar: Calendar, slot: number, defaultTz: string): boolean {
  const wall = toWallMs(slot, calendar.tz ?? defaultTz);
  if (calendar.dates?.includes(new Date(wall).toISOString().slice(0, 10))) return true;
  if (calendar.cron === undefined) return false;
  // A 5-field pattern names minutes: an interval slot at 09:00:30 is in the 09:00 minute.
  const unit = cronFields(calendar.cron).length === 6 ? 1000 : 60_000;
  return cronNamesWall({ kind: 'cron', cron: calendar.cron }, Math.floor(wall / unit) * unit);
}

/**
 * The exclusion that holds `slot` (epoch ms), as the recorded skip reason `excluded: <calendar>`
 * (the bundle calendar's name, or `exclude[i]` for an inline one), or undefined when none does.
 * Local dates and times are read in each calendar's `tz`, else the routine's (first) cron zone, else UTC,
 * so a date follows the zone's DST. Pure.
 */
export function exclusionOf(routine: Excludable, slot: number): string | undefined {
  const list = routine.exclude;
  if (!list || list.length === 0) return undefined;
  const tz = routineZone(routine);
  for (const [i, entry] of list.entries()) {
    if (typeof entry === 'string') continue; // never valid: validation resolves or refuses names
    if (calendarHolds(entry, slot, tz)) return `excluded: ${entry.name ?? `exclude[${i}]`}`;
  }
  return undefined;
}
