import { checkCron, cronMinGapMs } from '../model/cron-expression';
import type { Trigger } from '../model/trigger.schema';
import { mergedGapBelow } from './merged-gap';

/** The largest `jitterMs` of any routine: an hour (a slot's run starts at most this long after it). */
export const MAX_JITTER_MS = 3_600_000;

/** 32-bit FNV-1a of `text` (UTF-16 code units), then murmur3's finaliser so close inputs land far apart. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * How long after slot `slot` (epoch ms) the run of routine `routine` starts, in [0, jitterMs): a
 * stable hash of the name and the slot, so every replica — and the one that takes over after a
 * failover — computes the same offset, and each slot of a routine gets its own. 0 without jitter.
 * Pure.
 */
export function jitterOffsetMs(routine: string, slot: number, jitterMs: number): number {
  if (!(jitterMs > 1)) return 0;
  return Math.floor((hash32(`${routine}\u0000${slot}`) / 0x1_0000_0000) * Math.floor(jitterMs));
}

/**
 * When the run of slot `slot` of `def` is planned to start: the slot plus its jitter offset. The
 * slot itself (the run's id, `scheduledFor`, the slot ledger) does not move. Pure.
 */
export function plannedStart(def: { name: string; jitterMs?: number }, slot: number): number {
  return slot + jitterOffsetMs(def.name, slot, def.jitterMs ?? 0);
}

/**
 * The largest `jitterMs` a routine with `trigger` may have: {@link MAX_JITTER_MS}, and no more than
 * its smallest gap between two slots, so a slot's run always starts before the next slot comes
 * (runs keep the order of their slots). Undefined for a trigger that does not parse (its own
 * problem is reported).
 */
export function jitterLimitMs(trigger: Trigger): number | undefined {
  if (trigger.kind === 'interval') return Math.min(MAX_JITTER_MS, trigger.everyMs);
  if (trigger.kind !== 'cron') return MAX_JITTER_MS;
  const check = checkCron(trigger.cron);
  return check.ok ? Math.min(MAX_JITTER_MS, cronMinGapMs(check)) : undefined;
}

/**
 * The largest `jitterMs` a routine with this schedule may have: for a `triggers` list, no more than
 * any one trigger's limit nor the smallest gap between slots of the merged stream (a slot's run
 * still starts before the next slot of any trigger). Undefined when a trigger does not parse.
 */
export function scheduleJitterLimitMs(s: { trigger?: Trigger; triggers?: readonly Trigger[] }): number | undefined {
  const list = s.triggers ?? (s.trigger ? [s.trigger] : []);
  let limit = MAX_JITTER_MS;
  for (const t of list) {
    const one = jitterLimitMs(t);
    if (one === undefined) return undefined;
    limit = Math.min(limit, one);
  }
  return list.length > 1 ? (mergedGapBelow(list, limit) ?? limit) : limit;
}

/** Why `jitterMs` is too large for the routine's schedule (the field, the value and the limit), if it is. */
export function jitterProblem(
  jitterMs: number,
  s: { trigger?: Trigger; triggers?: readonly Trigger[] },
): string | undefined {
  // Zero needs no walk of the schedule: it is always within the limit.
  if (jitterMs === 0) return undefined;
  const limit = scheduleJitterLimitMs(s);
  if (limit === undefined || jitterMs <= limit) return undefined;
  const gap = s.triggers ? "the triggers' smallest gap between slots" : "the trigger's smallest gap between slots";
  const why = limit === MAX_JITTER_MS ? 'the most any routine may have' : gap;
  return `jitterMs ${jitterMs} is over ${limit} ms, ${why}; use jitterMs in [0, ${limit}]`;
}
