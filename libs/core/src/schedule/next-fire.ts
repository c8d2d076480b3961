import type { CronTrigger, IntervalTrigger, Trigger } from '../model/trigger.schema';
import { parseIsoInstant } from '../model/iso-instant';
import { nextCronSlot } from './cron-next-slot';
import { cronSlotsAfter, cronSlotsBefore } from './cron-schedule';
import { slotBounds, withinBounds } from './slot-bounds';

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
 * Lazily yield every fire time (epoch ms) of one trigger strictly after `afterMs`, strictly increasing.
 * Infinite for `cron` and `interval`; at most one for `once`; none for `manual`. Callers bound it.
 */
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

/** Lazily yield every fire time (epoch ms) of one trigger strictly before `beforeMs`, strictly decreasing. */
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

/**
 * What slots are generated from: one trigger, or a routine — its `trigger`, or its `triggers` list
 * merged. Every function below takes either, so a caller passes the routine and never loops.
 */
export type Schedule =
  | Trigger
  | { trigger?: Trigger; triggers?: readonly (Trigger & { name?: string })[]; startAt?: string; endAt?: string };

/**
 * One slot of a schedule: its instant (epoch ms) and, for a routine with a `triggers` list, the
 * trigger it is attributed to — its `name`, else its index in the list (`"0"`, `"1"`, …).
 */
export interface Slot {
  at: number;
  trigger?: string;
}

/** What a listed trigger's slots are attributed to: its name, else its index. */
export function triggerLabel(t: { name?: string }, index: number): string {
  return t.name ?? String(index);
}

/** The triggers of a schedule with their labels (none for a single trigger: nothing to tell apart). */
export function scheduleTriggers(s: Schedule): { trigger: Trigger; label?: string }[] {
  if ('kind' in s) return [{ trigger: s }];
  if (s.triggers) return s.triggers.map((trigger, i) => ({ trigger, label: triggerLabel(trigger, i) }));
  return s.trigger ? [{ trigger: s.trigger }] : [];
}

/** The schedule's trigger when it has exactly one (fast paths that know one trigger's shape). */
export function singleTrigger(s: Schedule): Trigger | undefined {
  const all = scheduleTriggers(s);
  return all.length === 1 ? all[0]!.trigger : undefined;
}

/**
 * Merges the triggers' streams (each strictly monotonic in `order`): yields the next instant of
 * any of them, once, attributed to the first trigger listed that has it.
 */
function* merge(
  s: Schedule,
  stream: (t: Trigger) => Generator<number, void, undefined>,
  order: 1 | -1,
): Generator<Slot, void, undefined> {
  const sources = scheduleTriggers(s).map((t) => ({
    label: t.label,
    gen: stream(t.trigger),
    head: undefined as number | undefined,
  }));
  for (const src of sources) src.head = first(src.gen);
  for (;;) {
    let best: (typeof sources)[number] | undefined;
    for (const src of sources) {
      if (src.head !== undefined && (best === undefined || (src.head - best.head!) * order < 0)) best = src;
    }
    if (!best) return;
    const at = best.head!;
    yield best.label === undefined ? { at } : { at, trigger: best.label };
    for (const src of sources) if (src.head === at) src.head = first(src.gen);
  }
}

/**
 * Every slot of `s` strictly after `afterMs`, ascending: the one place slots are generated. With
 * several triggers an instant two share is one slot, attributed to the first trigger listed.
 */
export function* scheduledSlotsAfter(s: Schedule, afterMs: number): Generator<Slot, void, undefined> {
  // A routine's startAt/endAt cut the merged stream: no slot outside them exists.
  const bounds = 'kind' in s ? undefined : slotBounds(s);
  const from = bounds?.startMs === undefined ? afterMs : Math.max(afterMs, bounds.startMs - 1);
  for (const slot of merge(s, (t) => triggerSlotsAfter(t, from), 1)) {
    if (!withinBounds(bounds, slot.at)) return;
    yield slot;
  }
}

/** Every slot of `s` strictly before `beforeMs`, descending (the mirror of {@link scheduledSlotsAfter}). */
export function* scheduledSlotsBefore(s: Schedule, beforeMs: number): Generator<Slot, void, undefined> {
  const bounds = 'kind' in s ? undefined : slotBounds(s);
  const from = bounds?.endMs === undefined ? beforeMs : Math.min(beforeMs, bounds.endMs + 1);
  for (const slot of merge(s, (t) => triggerSlotsBefore(t, from), -1)) {
    if (!withinBounds(bounds, slot.at)) return;
    yield slot;
  }
}

/** The fire times (epoch ms) of `s` strictly after `afterMs`, ascending (see {@link scheduledSlotsAfter}). */
export function* slotsAfter(s: Schedule, afterMs: number): Generator<number, void, undefined> {
  for (const slot of scheduledSlotsAfter(s, afterMs)) yield slot.at;
}

/** The fire times (epoch ms) of `s` strictly before `beforeMs`, descending. */
export function* slotsBefore(s: Schedule, beforeMs: number): Generator<number, void, undefined> {
  for (const slot of scheduledSlotsBefore(s, beforeMs)) yield slot.at;
}

/**
 * The trigger slot `at` of `s` is attributed to (see {@link Slot}); undefined for a single trigger,
 * or an instant the schedule does not have (the triggers changed since).
 */
export function slotTrigger(s: Schedule, at: number): string | undefined {
  const slot = scheduledSlotsAfter(s, at - 1).next();
  return !slot.done && slot.value.at === at ? slot.value.trigger : undefined;
}

function first(gen: Generator<number, void, undefined>): number | undefined {
  const r = gen.next();
  return r.done ? undefined : r.value;
}

/**
 * The first fire time (epoch ms) of `s` strictly after `afterMs`, or `undefined` if it never fires again
 * (`manual`; `once` whose `at` is not after `afterMs`; a cron with no further date).
 * Invariant: `nextFire(t, x) > x`. Cron follows the DST policy of `cronSlotsAfter`; interval the epoch grid.
 */
export function nextFire(s: Schedule, afterMs: number): number | undefined {
  const cron = unboundedCron(s);
  return cron ? nextCronSlot(cron, afterMs) : first(slotsAfter(s, afterMs));
}

/** The schedule's one cron trigger when nothing else shapes its slots (no list, no startAt/endAt). */
function unboundedCron(s: Schedule): CronTrigger | undefined {
  if ('kind' in s) return s.kind === 'cron' ? s : undefined;
  if (s.triggers || s.startAt !== undefined || s.endAt !== undefined) return undefined;
  return s.trigger?.kind === 'cron' ? s.trigger : undefined;
}

/** The last fire time (epoch ms) of `s` strictly before `beforeMs`, or `undefined`. Mirror of {@link nextFire}. */
export function prevFire(s: Schedule, beforeMs: number): number | undefined {
  return first(slotsBefore(s, beforeMs));
}

/** Largest `n` {@link preview} and {@link slotsBetween} will return. */
export const MAX_ENUMERATED_SLOTS = 10_000;

/**
 * The next `n` fire times (epoch ms, strictly increasing) of `s` (a trigger or a routine) strictly after `fromMs`.
 * Fewer than `n` when the trigger runs out (`once`, `manual`). `n` is clamped to [0, {@link MAX_ENUMERATED_SLOTS}].
 */
export function preview(s: Schedule, fromMs: number, n: number): number[] {
  const limit = Math.max(0, Math.min(Math.floor(n), MAX_ENUMERATED_SLOTS));
  const out: number[] = [];
  if (limit === 0) return out;
  for (const at of slotsAfter(s, fromMs)) {
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
  s: Schedule,
  fromMs: number,
  toMs: number,
  limit: number = MAX_ENUMERATED_SLOTS,
): { slots: number[]; truncated: boolean } {
  const { slots, truncated } = scheduledSlotsBetween(s, fromMs, toMs, limit);
  return { slots: slots.map((slot) => slot.at), truncated };
}

/** {@link slotsBetween} with each slot's attribution (see {@link Slot}). */
export function scheduledSlotsBetween(
  s: Schedule,
  fromMs: number,
  toMs: number,
  limit: number = MAX_ENUMERATED_SLOTS,
): { slots: Slot[]; truncated: boolean } {
  const cap = Math.max(0, Math.min(Math.floor(limit), MAX_ENUMERATED_SLOTS));
  const slots: Slot[] = [];
  for (const slot of scheduledSlotsAfter(s, fromMs)) {
    if (slot.at > toMs) return { slots, truncated: false };
    if (slots.length >= cap) return { slots, truncated: true };
    slots.push(slot);
  }
  return { slots, truncated: false };
}
