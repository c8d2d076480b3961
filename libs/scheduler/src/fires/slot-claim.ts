import { nextFire, type Trigger } from '@drover/core';

const MIN_TTL_MS = 10 * 60_000;
const MAX_TTL_MS = 48 * 3_600_000;

/**
 * How long a slot claim lives. The catch-up cursor stops a slot from being dispatched again once
 * it has advanced past it; the claim only has to cover the window in which several dispatchers
 * (fires retried by BullMQ, a watchdog repair, a new leader's catch-up) can race for the same
 * slot — so: several gaps between slots, at least 10 minutes, at most 48 hours. This keeps a
 * 1-second routine at a few hundred keys, not 86,400 a day.
 */
export function slotClaimTtlMs(trigger: Trigger, now: number): number {
  const next = nextFire(trigger, now);
  const after = next === undefined ? undefined : nextFire(trigger, next);
  const gap = next !== undefined && after !== undefined ? after - next : MIN_TTL_MS;
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, 5 * gap));
}
