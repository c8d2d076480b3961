import { catchUp, slotsBetween, type CatchUpResult, type Routine, type SkipReason } from '@drover/core';

/**
 * What to do with a routine's slots in `(cursor, now]` (epoch ms). Slots at most `missedAfterMs`
 * late fire normally (source `schedule`), all of them, so that a fire delayed by a crashed
 * replica is not mistaken for downtime; older ones are *missed* and go through core's catch-up
 * policy. A starting deadline applies to both. Pure.
 */
export function planDue(def: Routine, cursor: number, now: number, missedAfterMs: number): CatchUpResult {
  const deadline = def.startingDeadlineMs;
  const boundary = now - missedAfterMs;
  let plan: CatchUpResult = { fire: [], skip: [], cursor };
  if (cursor < boundary) {
    // Evaluate the missed part as of `boundary`; shifting the deadline by the same amount keeps
    // "later than slot + deadline" exact.
    plan = catchUp({
      trigger: def.trigger,
      lastSlot: cursor,
      now: boundary,
      policy: def.catchUpPolicy,
      maxCatchUp: def.maxCatchUp,
      startingDeadlineMs: deadline === undefined ? undefined : deadline - missedAfterMs,
      graceMs: -1,
    });
  }
  const recent = slotsBetween(def.trigger, Math.max(cursor, boundary), now, 1_000).slots;
  for (const slot of recent) {
    if (deadline !== undefined && now - slot > deadline) plan.skip.push({ slot, reason: 'deadline-exceeded' });
    else plan.fire.push({ slot, source: 'schedule' });
  }
  const newest = recent.at(-1);
  return { ...plan, cursor: Math.max(plan.cursor, newest ?? cursor) };
}

/**
 * What to do with one slot decided again after its armed run was withdrawn (a refire), at `now`:
 * like {@link planDue} for that slot alone — on time within `missedAfterMs`, otherwise missed and
 * handled by the routine's catch-up policy (`skip` records it, `last`/`all` run it as catch-up);
 * past the starting deadline it is skipped. Pure.
 */
export function planRefire(
  def: Routine,
  slot: number,
  now: number,
  missedAfterMs: number,
): { slot: number; source: 'schedule' | 'catch-up'; skip?: SkipReason } {
  const late = now - slot;
  if (def.startingDeadlineMs !== undefined && late > def.startingDeadlineMs)
    return { slot, source: 'catch-up', skip: 'deadline-exceeded' };
  if (late <= missedAfterMs) return { slot, source: 'schedule' };
  return def.catchUpPolicy === 'skip'
    ? { slot, source: 'catch-up', skip: 'catch-up-skip' }
    : { slot, source: 'catch-up' };
}
