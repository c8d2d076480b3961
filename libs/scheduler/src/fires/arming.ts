import { launchBlocker, nextFire, type LauncherState, type Routine } from '@drover/core';

/** How far ahead a run may be armed: a day covers every routine that fires at least daily. */
export const ARM_HORIZON_MS = 24 * 3_600_000;

/**
 * How many upcoming slots are armed. Two, so that arming the slot after next has a whole
 * interval of slack: a fire dispatched late never leaves the very next run unarmed.
 */
export const ARM_AHEAD = 2;

/**
 * How soon a new schedule's first slot must come for its routine to be armed as the schedule is
 * written (see `armFireJobId`). Bounded, so that creating many routines at once arms only those
 * about to fire; the others are armed by their first fire, well before their second slot.
 */
export const ARM_ON_WRITE_MS = 60_000;

/**
 * Whether writing a routine's schedule at `now`, whose first slot is `first`, should also arm its
 * first slots: it is armable and that slot is within {@link ARM_ON_WRITE_MS}. Pure.
 */
export function armsOnWrite(def: Routine, first: number, now: number): boolean {
  return isArmable(def) && first - now <= ARM_ON_WRITE_MS;
}

/**
 * Whether a routine's outcome at fire time is known in advance, so its runs may be armed ahead:
 * active, timed by cron or interval, overlap allowed, no condition, not a selector. Pure.
 */
export function isArmable(def: Routine): boolean {
  return (
    def.status === 'active' &&
    def.concurrencyPolicy === 'allow' &&
    !def.condition &&
    !def.selector &&
    // A `triggers` list holds only cron and interval triggers.
    (def.triggers !== undefined || def.trigger?.kind === 'cron' || def.trigger?.kind === 'interval')
  );
}

/**
 * The upcoming slots (at most {@link ARM_AHEAD}) whose runs may be created ahead of time, as a delayed job BullMQ
 * promotes at the slot time — which takes the fires hop off the critical path of lateness.
 * Only when nothing evaluated at fire time could change the outcome: active, timed by cron or
 * interval, overlap allowed, no condition, not a selector, launcher healthy. Edits and pauses disarm (the
 * leader removes the armed job and frees its slot). Only slots within `startAt`/`endAt`, and only
 * up to a slot `skipped` says will be skipped (an exclusion, an operator's skip): arming moves the
 * cursor, so arming past such a slot would leave it undecided; its own fire records it, then arms
 * the slots after it. Pure.
 */
export function armableSlots(
  def: Routine,
  launcher: LauncherState,
  after: number,
  now: number,
  skipped: (slot: number) => boolean = () => false,
): number[] {
  if (!isArmable(def)) return [];
  if (launcher.consecutiveFailures > 0 || launchBlocker(launcher, now)) return [];
  const slots: number[] = [];
  let from = Math.max(after, now);
  while (slots.length < ARM_AHEAD) {
    const next = nextFire(def, from);
    if (next === undefined || next - now > ARM_HORIZON_MS) break;
    if (skipped(next)) break;
    slots.push(next);
    from = next;
  }
  return slots;
}
