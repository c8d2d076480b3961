import type { IntervalTrigger, Trigger } from '../model/trigger.schema';
import { parseIsoInstant } from '../model/iso-instant';
import { cronSlotsAfter, cronSlotsBefore } from './cron-schedule';
import { boundedAfter, boundedBefore, type SlotBounds } from './slot-bounds';

/**
 * Slot k of an interval trigger lies at `k * everyMs + offsetMs` (epoch ms) for every integer k: the grid is
 * anchored to the Unix epoch, so it never moves across restarts or leader changes.
 * Returns the first slot strictly after `afterMs`.
 */
export function intervalSlotAfter(trigger: IntervalTrigger, afterMs: number): number {
  const offset = trigger.offsetMs ?? 0;
  return (Math.floor((afterMs - offset) / trigger.everyMs) + 1) * trigger.everyMs + offset;
}

/** The last interval slot strictly before `beforeMs` (same epoch grid as {@link intervalSlotAfter}). */
export function intervalSlotBefore(trigger: IntervalTrigger, beforeMs: number): number {
  const offset = trigger.offsetMs ?? 0;
  return (Math.ceil((beforeMs - offset) / trigger.everyMs) - 1) * trigger.everyMs + offset;
}

/**
 * Lazily yield every fire time (epoch ms) of `trigger` strictly after `afterMs`, strictly increasing,
 * within `bounds` (a routine's `startAt`/`endAt`, see `slotBounds`). Infinite for `cron` and
 * `interval` without an end; at most one for `once`; none for `manual`. Callers bound it.
 */
export function slotsAfter(trigger: Trigger, afterMs: number, bounds?: SlotBounds): Generator<number, void, undefined> {
  return boundedAfter((from) => triggerSlotsAfter(trigger, from), afterMs, bounds);
}

/** Lazily yield every fire time (epoch ms) of `trigger` strictly before `beforeMs`, strictly decreasing, within `bounds`. */
export function slotsBefore(
  trigger: Trigger,
  beforeMs: number,
  bounds?: SlotBounds,
): Generator<number, void, undefined> {
  return boundedBefore((from) => triggerSlotsBefore(trigger, from), beforeMs, bounds);
}

function* triggerSlotsAfter(trigger: Trigger, afterMs: number): Generator<number, void, undefined> {
  switch (trigger.kind) {
    case 'cron':
      yield* cronSlotsAfter(trigger, afterMs);
      return;
    case 'interval':
      for (let at = intervalSlotAfter(trigger, afterMs); ; at += trigger.everyMs) yield at;
    case 'once': {
      const at = parseIsoInstant(trigger.at);
      if (at !== undefined && at > afterMs) yield at;
      return;
    }
    case 'manual':
      return;
  }
}

function* triggerSlotsBefore(trigger: Trigger, beforeMs: number): Generator<number, void, undefined> {
  switch (trigger.kind) {
    case 'cron':
      yield* cronSlotsBefore(trigger, beforeMs);
      return;
    case 'interval':
      for (let at = intervalSlotBefore(trigger, beforeMs); ; at -= trigger.everyMs) yield at;
    case 'once': {
      const at = parseIsoInstant(trigger.at);
      if (at !== undefined && at < beforeMs) yield at;
      return;
    }
    case 'manual':
      return;
  }
}

function first(gen: Generator<number, void, undefined>): number | undefined {
  const r = gen.next();
  return r.done ? undefined : r.value;
}

/**
 * The first fire time (epoch ms) of `trigger` strictly after `afterMs`, or `undefined` if it never fires again
 * (`manual`; `once` whose `at` is not after `afterMs`; a cron with no further date).
 * Invariant: `nextFire(t, x) > x`. Cron follows the DST policy of `cronSlotsAfter`; interval the epoch grid.
 */
export function nextFire(trigger: Trigger, afterMs: number, bounds?: SlotBounds): number | undefined {
  return first(slotsAfter(trigger, afterMs, bounds));
}

/** The last fire time (epoch ms) of `trigger` strictly before `beforeMs`, or `undefined`. Mirror of {@link nextFire}. */
export function prevFire(trigger: Trigger, beforeMs: number, bounds?: SlotBounds): number | undefined {
  return first(slotsBefore(trigger, beforeMs, bounds));
}

/** Largest `n` {@link preview} and {@link slotsBetween} will return. */
export const MAX_ENUMERATED_SLOTS = 10_000;

/**
 * The next `n` fire times (epoch ms, strictly increasing) of `routine.trigger` strictly after `fromMs`.
 * Fewer than `n` when the trigger runs out (`once`, `manual`). `n` is clamped to [0, {@link MAX_ENUMERATED_SLOTS}].
 */
export function preview(routine: { trigger: Trigger }, fromMs: number, n: number, bounds?: SlotBounds): number[] {
  const limit = Math.max(0, Math.min(Math.floor(n), MAX_ENUMERATED_SLOTS));
  const out: number[] = [];
  if (limit === 0) return out;
  for (const at of slotsAfter(routine.trigger, fromMs, bounds)) {
    out.push(at);
    if (out.length >= limit) break;
  }
  return out;
}

/**
 * The fire times in `(fromMs, toMs]` (epoch ms, ascending), at most `limit` of them (clamped to
 * [0, {@link MAX_ENUMERATED_SLOTS}]). `truncated` is true when more slots exist in the range than were returned
 * (the earliest `limit` are returned). Never loops more than `limit + 1` times.
 */
export function slotsBetween(
  trigger: Trigger,
  fromMs: number,
  toMs: number,
  limit: number = MAX_ENUMERATED_SLOTS,
  bounds?: SlotBounds,
): { slots: number[]; truncated: boolean } {
  const cap = Math.max(0, Math.min(Math.floor(limit), MAX_ENUMERATED_SLOTS));
  const slots: number[] = [];
  for (const at of slotsAfter(trigger, fromMs, bounds)) {
    if (at > toMs) return { slots, truncated: false };
    if (slots.length >= cap) return { slots, truncated: true };
    slots.push(at);
  }
  return { slots, truncated: false };
}
