import type { RepeatStrategy } from 'bullmq';
import { nextFire } from '@drover/core';

/**
 * When BullMQ's Job Scheduler of a cron routine fires next: at core's next slot, not cron-parser's.
 * cron-parser moves a slot inside a spring-forward gap by the gap's length (`30 2 * * *` in Berlin
 * fires at 03:30, not at the transition) and fires a wildcard hour twice in a fall-back overlap; core's
 * DST policy (docs/core.md) does neither. A fire at another instant than the slot would reach the
 * slot late — a catch-up, or a watchdog repair — so the queue that writes the schedulers and the
 * worker that moves them on both take this strategy. Pure.
 */
export const cronRepeatStrategy: RepeatStrategy = (millis, opts) => {
  if (!opts.pattern) return undefined;
  return nextFire({ kind: 'cron', cron: opts.pattern, ...(opts.tz && { tz: opts.tz }) }, millis);
};
