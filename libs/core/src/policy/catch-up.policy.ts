import type { CatchUpPolicy } from '../model/routine.schema';
import { slotsBefore, type Schedule } from '../schedule/next-fire';
import { countSlotsBetween } from './count-slots';
import { DEFAULT_MISFIRE_GRACE_MS } from './misfire';
import type { SkipReason } from './skip-reason';

export { DEFAULT_MISFIRE_GRACE_MS } from './misfire';
/** Default number of skipped slots listed individually by {@link catchUp}. */
export const DEFAULT_MAX_SKIP_RECORDS = 1000;
/** At most this many on-time slots fire in one dispatch (a long grace on a fast trigger). */
export const MAX_ON_TIME_FIRES = 1000;

export interface CatchUpInput {
  /** The routine (or one trigger): several triggers are one merged stream of slots. */
  trigger: Schedule;
  /** Latest slot already fired or recorded (epoch ms); slots in `(lastSlot, now]` are due. */
  lastSlot: number;
  now: number;
  policy: CatchUpPolicy;
  /** Policy `all`: fire at most this many missed slots (the newest). Default 100. */
  maxCatchUp?: number;
  /** A slot with `now - slot > startingDeadlineMs` is skipped (`deadline-exceeded`). Unset = no deadline. */
  startingDeadlineMs?: number;
  /**
   * Every due slot with `now - slot <= misfireGraceMs` is on time and fires normally (source `schedule`)
   * under any policy; older ones are missed. Default {@link DEFAULT_MISFIRE_GRACE_MS}; negative = none on time.
   */
  misfireGraceMs?: number;
  /** List at most this many skipped slots (the newest); older ones are only counted. Default 1000. */
  maxSkipRecords?: number;
  /**
   * When a slot's run is planned to start (a jittered routine's `plannedStart`); lateness — the
   * grace and the deadline — counts from it, so jitter never reads as lateness. Default: the slot.
   */
  startOf?: (slot: number) => number;
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

type Lateness = 'late' | 'on-time' | 'missed';

function lateness(
  slot: number,
  input: Pick<CatchUpInput, 'now' | 'startingDeadlineMs' | 'misfireGraceMs' | 'startOf'>,
): Lateness {
  const late = input.now - (input.startOf ? input.startOf(slot) : slot);
  if (input.startingDeadlineMs !== undefined && late > input.startingDeadlineMs) return 'late';
  return late <= (input.misfireGraceMs ?? DEFAULT_MISFIRE_GRACE_MS) ? 'on-time' : 'missed';
}

const policyReason = (policy: CatchUpPolicy): SkipReason =>
  policy === 'skip' ? 'catch-up-skip' : policy === 'last' ? 'superseded' : 'catch-up-capped';

/**
 * Decide what to do with the slots in `(lastSlot, now]` (all times epoch ms). A slot dispatched at most
 * `misfireGraceMs` late is on time and fires normally (source `schedule`), all of them, under every policy —
 * so a crashed replica or a failover delaying fires by seconds never turns into a catch-up. Older slots are
 * *missed* and handled by `policy`: `skip` → skipped (`catch-up-skip`); `last` → the newest missed fires as
 * `catch-up` unless an on-time slot fires, the rest `superseded`; `all` → the newest `maxCatchUp` missed fire
 * in order, older ones `catch-up-capped`. Any slot past `startingDeadlineMs` is skipped as `deadline-exceeded`
 * first. Bounded: enumerates at most `maxCatchUp + maxSkipRecords + MAX_ON_TIME_FIRES` slots, plus a capped
 * count of older ones. Pure and deterministic.
 */
export function catchUp(input: CatchUpInput): CatchUpResult {
  const { trigger, lastSlot, now, policy } = input;
  const maxCatchUp = Math.max(0, input.maxCatchUp ?? 100);
  const maxSkipRecords = Math.max(0, input.maxSkipRecords ?? DEFAULT_MAX_SKIP_RECORDS);
  const limit = maxCatchUp + maxSkipRecords + MAX_ON_TIME_FIRES;

  const due: number[] = []; // newest first
  if (now > lastSlot) {
    for (const slot of slotsBefore(trigger, now + 1)) {
      if (slot <= lastSlot || due.length >= limit) break;
      due.push(slot);
    }
  }
  const newest = due[0];
  if (newest === undefined) return { fire: [], skip: [], cursor: lastSlot };

  const fire: FireSlot[] = [];
  const skip: SkippedSlot[] = [];
  let onTime = 0;
  let caughtUp = 0;
  for (const slot of due) {
    const l = lateness(slot, input);
    if (l === 'late') skip.push({ slot, reason: 'deadline-exceeded' });
    else if (l === 'on-time') {
      if (onTime < MAX_ON_TIME_FIRES) {
        onTime++;
        fire.push({ slot, source: 'schedule' });
      } else skip.push({ slot, reason: 'catch-up-capped' });
    } else if (policy === 'all' && caughtUp < maxCatchUp) {
      caughtUp++;
      fire.push({ slot, source: 'catch-up' });
    } else if (policy === 'last' && onTime === 0 && caughtUp === 0) {
      caughtUp++;
      fire.push({ slot, source: 'catch-up' });
    } else skip.push({ slot, reason: policyReason(policy) });
  }

  const listed = skip.slice(0, maxSkipRecords);
  const dropped = skip.length - listed.length;
  const oldest = due[due.length - 1] as number;
  const older = due.length >= limit ? countSlotsBetween(trigger, lastSlot, oldest) : { count: 0, exact: true };
  const result: CatchUpResult = { fire: fire.reverse(), skip: listed.reverse(), cursor: newest };
  if (dropped + older.count > 0) {
    const reason = lateness(oldest, input) === 'late' ? 'deadline-exceeded' : policyReason(policy);
    result.unlisted = { count: dropped + older.count, exact: older.exact, reason };
  }
  return result;
}

/**
 * What to do with one slot decided on its own at `now` (a slot whose armed run was withdrawn and is
 * decided again): as {@link catchUp} would treat it were it the only due slot — on time within
 * `misfireGraceMs`, else missed and handled by the policy (`last` and `all` fire it as `catch-up`),
 * skipped past the starting deadline. Pure.
 */
export function catchUpOne(
  slot: number,
  input: Pick<CatchUpInput, 'now' | 'policy' | 'startingDeadlineMs' | 'misfireGraceMs' | 'startOf'>,
): { fire: FireSlot } | { skip: SkippedSlot } {
  const l = lateness(slot, input);
  if (l === 'late') return { skip: { slot, reason: 'deadline-exceeded' } };
  if (l === 'on-time') return { fire: { slot, source: 'schedule' } };
  return input.policy === 'skip' ? { skip: { slot, reason: 'catch-up-skip' } } : { fire: { slot, source: 'catch-up' } };
}
