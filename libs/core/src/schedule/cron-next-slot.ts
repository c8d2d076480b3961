import type { CronTrigger } from '../model/trigger.schema';
import { cronSlotsAfter } from './cron-schedule';

/**
 * A cron trigger's slots are a fixed set of instants, so when `n` is the first slot after `a`, it
 * is also the first slot after every instant in `[a, n)`. Each entry keeps the widest such span
 * seen for one expression and zone; many routines sharing a schedule (a reconcile of 100 000
 * routines, the watchdog's look at each) then pay cron-parser and the zone arithmetic once per
 * slot instead of once per routine. A memo, not state: a hit answers what the computation would.
 */
interface Span {
  /** The earliest `afterMs` known to lead to `next`. */
  from: number;
  next: number;
}

/** Distinct expressions and zones remembered; past this the memo starts over (it only saves work). */
const MAX_SPANS = 4_096;
const spans = new Map<string, Span>();

function memoKey(trigger: CronTrigger): string {
  return `${trigger.tz ?? 'UTC'}\u0000${trigger.cron}`;
}

/**
 * The first slot (epoch ms) of `trigger` strictly after `afterMs` (the DST policy of
 * {@link cronSlotsAfter}), or undefined when cron-parser finds no further date. Pure.
 */
export function nextCronSlot(trigger: CronTrigger, afterMs: number): number | undefined {
  const key = memoKey(trigger);
  const span = spans.get(key);
  if (span && span.from <= afterMs && afterMs < span.next) return span.next;
  const next = cronSlotsAfter(trigger, afterMs).next();
  if (next.done) return undefined;
  if (span && span.next === next.value) span.from = Math.min(span.from, afterMs);
  else {
    if (!span && spans.size >= MAX_SPANS) spans.clear();
    spans.set(key, { from: afterMs, next: next.value });
  }
  return next.value;
}

/** Forgets every remembered span (tests compare the memo with a fresh computation). */
export function forgetCronSpans(): void {
  spans.clear();
}
