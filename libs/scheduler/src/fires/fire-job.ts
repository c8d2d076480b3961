import type { Routine, SlotBounds, Trigger } from '@drover/core';
import { isArmable } from './arming';

/**
 * How long after its slot an interval routine's fire is delivered. A routine whose runs are
 * armed ahead (see `armableSlots`) does not need its fire at the slot: the fire only arms the
 * next run. Delivering it half an interval later (at most 500 ms) keeps that burst of
 * dispatch work away from the instant the armed runs start. Pure.
 */
export function fireLagMs(def: Routine): number {
  const t = def.trigger;
  if (t.kind !== 'interval' || !isArmable(def)) return 0;
  return Math.min(Math.floor(t.everyMs / 2), 500);
}

/**
 * A stable fingerprint of what a routine's Job Scheduler depends on. Only the trigger and the
 * routine's `startAt`/`endAt` matter: payload, priority, policies and exclusions are read at fire
 * time, so editing them writes no scheduler.
 */
export function schedulerFingerprint(trigger: Trigger, lagMs = 0, bounds?: SlotBounds): string {
  const within = `${bounds?.startMs !== undefined ? `|from ${bounds.startMs}` : ''}${bounds?.endMs !== undefined ? `|until ${bounds.endMs}` : ''}`;
  return triggerFingerprint(trigger, lagMs) + within;
}

function triggerFingerprint(trigger: Trigger, lagMs: number): string {
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
