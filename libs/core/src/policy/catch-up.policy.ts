import type { CatchUpPolicy } from '../model/routine.schema';
import type { Trigger } from '../model/trigger.schema';
import { slotsBefore } from '../schedule/next-fire';
import { countSlotsBetween } from './count-slots';
import type { SkipReason } from './skip-reason';

/** Default lateness (ms) up to which the newest due slot is "on time" rather than missed. */
export const DEFAULT_CATCH_UP_GRACE_MS = 60_000;
/** Default number of skipped slots listed individually by {@link catchUp}. */
export const DEFAULT_MAX_SKIP_RECORDS = 1000;

export interface CatchUpInput {
  trigger: Trigger;
  /** Latest slot already fired or recorded (epoch ms); slots in `(lastSlot, now]` are due. */
  lastSlot: number;
  now: number;
  policy: CatchUpPolicy;
  /** Policy `all`: fire at most this many missed slots (the newest). Default 100. */
  maxCatchUp?: number;
  /** A slot with `now - slot > startingDeadlineMs` is skipped (`deadline-exceeded`). Unset = no deadline. */
  startingDeadlineMs?: number;
  /** The newest due slot with `now - slot <= graceMs` fires normally under any policy. Default 60000. */
  graceMs?: number;
  /** List at most this many skipped slots (the newest); older ones are only counted. Default 1000. */
  maxSkipRecords?: number;
}

export interface FireSlot {
  slot: number;
  source: 'schedule' | 'catch-up';
}
export interface SkippedSlot {
  slot: number;
  reason: SkipReason;
}
export interface CatchUpResult {
  /** Slots to fire now, ascending, each at most once. */
  fire: FireSlot[];
  /** Slots to record as skipped, ascending; the newest `maxSkipRecords` of them. */
  skip: SkippedSlot[];
  /** Older skipped slots not listed in `skip` (all with `reason`); `exact` false = `count` is a lower bound. */
  unlisted?: { count: number; exact: boolean; reason: SkipReason };
  /** The new `lastSlot` to persist: the newest due slot, or the input `lastSlot` if none was due. */
  cursor: number;
}

/**
 * Decide what to do with the slots in `(lastSlot, now]` (all times epoch ms). The newest due slot fires as
 * `schedule` if it is at most `graceMs` late; every other due slot is *missed* and handled by `policy`:
 * `skip` → skipped (`catch-up-skip`); `last` → the newest missed fires as `catch-up` unless an on-time slot fires,
 * the rest `superseded`; `all` → the newest `maxCatchUp` missed fire in order, older ones `catch-up-capped`.
 * Any slot past `startingDeadlineMs` is skipped as `deadline-exceeded` first. Bounded: enumerates at most
 * `maxCatchUp + maxSkipRecords + 1` slots, plus a capped count of older ones. Pure and deterministic.
 */
export function catchUp(input: CatchUpInput): CatchUpResult {
  const { trigger, lastSlot, now, policy } = input;
  const maxCatchUp = Math.max(0, input.maxCatchUp ?? 100);
  const graceMs = input.graceMs ?? DEFAULT_CATCH_UP_GRACE_MS;
  const maxSkipRecords = Math.max(0, input.maxSkipRecords ?? DEFAULT_MAX_SKIP_RECORDS);
  const limit = maxCatchUp + maxSkipRecords + 1;

  const due: number[] = []; // newest first
  if (now > lastSlot) {
    for (const slot of slotsBefore(trigger, now + 1)) {
      if (slot <= lastSlot || due.length >= limit) break;
      due.push(slot);
    }
  }
  const newest = due[0];
  if (newest === undefined) return { fire: [], skip: [], cursor: lastSlot };

  const late = (slot: number): boolean =>
    input.startingDeadlineMs !== undefined && now - slot > input.startingDeadlineMs;
  const onTime = now - newest <= graceMs && !late(newest);
  const policyReason: SkipReason =
    policy === 'skip' ? 'catch-up-skip' : policy === 'last' ? 'superseded' : 'catch-up-capped';

  const fire: FireSlot[] = [];
  const skip: SkippedSlot[] = [];
  let caughtUp = 0;
  due.forEach((slot, i) => {
    if (i === 0 && onTime) fire.push({ slot, source: 'schedule' });
    else if (late(slot)) skip.push({ slot, reason: 'deadline-exceeded' });
    else if (policy === 'all' && caughtUp < maxCatchUp) {
      caughtUp++;
      fire.push({ slot, source: 'catch-up' });
    } else if (policy === 'last' && !onTime && caughtUp === 0) {
      caughtUp++;
      fire.push({ slot, source: 'catch-up' });
    } else skip.push({ slot, reason: policyReason });
  });

  const listed = skip.slice(0, maxSkipRecords);
  const dropped = skip.length - listed.length;
  const oldest = due[due.length - 1] as number;
  const older = due.length >= limit ? countSlotsBetween(trigger, lastSlot, oldest) : { count: 0, exact: true };
  const result: CatchUpResult = { fire: fire.reverse(), skip: listed.reverse(), cursor: newest };
  if (dropped + older.count > 0) {
    const reason = late(oldest) ? 'deadline-exceeded' : policyReason;
    result.unlisted = { count: dropped + older.count, exact: older.exact, reason };
  }
  return result;
}
