import { launchBlocker, nextFire, type LauncherState, type Routine } from '@drover/core';

/** How far ahead a run may be armed: a day covers every routine that fires at least daily. */
export const ARM_HORIZON_MS = 24 * 3_600_000;

/**
 * Whether a routine's next run may be created ahead of its slot, as a delayed job BullMQ
 * promotes at the slot time — which takes the fires hop off the critical path of lateness.
 * Only when nothing evaluated at fire time could change the outcome: active, timed by cron or
 * interval, overlap allowed, no condition, launcher healthy. Edits and pauses disarm (the
 * leader removes the armed job and frees its slot). Pure.
 */
export function armableSlot(def: Routine, launcher: LauncherState, after: number, now: number): number | undefined {
  if (def.status !== 'active' || def.concurrencyPolicy !== 'allow' || def.condition) return undefined;
  if (def.trigger.kind !== 'cron' && def.trigger.kind !== 'interval') return undefined;
  if (launcher.consecutiveFailures > 0 || launchBlocker(launcher, now)) return undefined;
  const next = nextFire(def.trigger, Math.max(after, now));
  return next !== undefined && next - now <= ARM_HORIZON_MS ? next : undefined;
}
