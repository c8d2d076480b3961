import { slotBounds, type Routine, type Trigger } from '@drover/core';
import { isArmable } from './arming';

/**
 * How long after its slot an interval routine's fire is delivered. A routine whose runs are
 * armed ahead (see `armableSlots`) does not need its fire at the slot: the fire only arms the
 * next run. Delivering it half an interval later (at most 500 ms) keeps that burst of
 * dispatch work away from the instant the armed runs start. Pure.
 */
export function fireLagMs(def: Routine): number {
  const t = def.trigger;
  // A `triggers` list is timed by several schedulers that may share instants: no lag, kept simple.
  if (t?.kind !== 'interval' || !isArmable(def)) return 0;
  return Math.min(Math.floor(t.everyMs / 2), 500);
}

/**
 * A stable fingerprint of what a routine's Job Scheduler depends on. Only the trigger matters:
 * payload, priority and policies are read at fire time, so editing them writes no scheduler.
 */
export function schedulerFingerprint(trigger: Trigger, lagMs = 0): string {
  switch (trigger.kind) {
    case 'cron':
      return `cron|${trigger.cron}|${trigger.tz ?? 'UTC'}`;
    case 'interval':
      return `every|${trigger.everyMs}|${trigger.offsetMs ?? 0}${lagMs ? `|lag ${lagMs}` : ''}`;
    case 'once':
      return `once|${Date.parse(trigger.at)}`;
    case 'manual':
      return 'manual';
  }
}

/**
 * The Job Scheduler id of a routine's trigger: the routine's name for its only (or first) trigger,
 * `<name>#<index>` for the others of a `triggers` list (`#` is never in a routine name). The fire
 * job's data names the routine, so every scheduler of a routine dispatches the same routine.
 */
export function schedulerId(routine: string, index: number): string {
  return index === 0 ? routine : `${routine}#${index}`;
}

/** The routine a Job Scheduler id belongs to (see {@link schedulerId}). */
export function routineOfScheduler(id: string): string {
  const hash = id.indexOf('#');
  return hash < 0 ? id : id.slice(0, hash);
}

/** Marks the fingerprint of a `triggers` list: `list|<fingerprint of each trigger, in order, joined by ";">`. */
const LIST = 'list|';

/**
 * The fingerprint of every timing source a routine needs: its trigger's (unchanged for a single
 * `trigger`, so stored routines reconcile to nothing new), or for a `triggers` list each
 * trigger's in order. A trigger's `name` is left out: renaming one moves no scheduler. The
 * routine's `startAt`/`endAt` are part of it (the schedulers start and end there); exclusions are
 * read at fire time and are not.
 */
export function routineFingerprint(def: Routine): string {
  const b = slotBounds(def);
  const within = `${b?.startMs !== undefined ? `|from ${b.startMs}` : ''}${b?.endMs !== undefined ? `|until ${b.endMs}` : ''}`;
  if (def.triggers) return LIST + def.triggers.map((t) => schedulerFingerprint(t) + within).join(';');
  return schedulerFingerprint(def.trigger!, fireLagMs(def)) + within;
}

/** The per-scheduler fingerprints a routine fingerprint stands for (one per Job Scheduler, index = its position). */
export function schedulerFingerprints(fingerprint: string): string[] {
  return fingerprint.startsWith(LIST) ? fingerprint.slice(LIST.length).split(';') : [fingerprint];
}
