import { MAX_PENDING_SKIPS, RoutineNotFoundError, skipRefusal, type OperatorSkip } from '@drover/core';
import { NotASlotError } from '../errors/not-a-slot.error';
import { SlotNotSkippableError } from '../errors/slot-not-skippable.error';
import type { SlotClaims } from '../slots/slot-claims.store';
import type { RoutineChanges } from './routine-changes';
import type { RoutineStore } from './routine.store';
import type { SlotSkips } from './slot-skips.store';

export interface SkipDeps {
  routines: RoutineStore;
  claims: SlotClaims;
  skips: SlotSkips;
  changes: RoutineChanges;
}

const iso = (ms: number) => new Date(ms).toISOString();
/** Skips older than this are forgotten when a new one is added (their slots were decided long ago). */
const PRUNE_AFTER_MS = 86_400_000;

/**
 * An operator skips one future slot of a routine: it is recorded skipped (`skipped-by-operator`)
 * when it comes, and never runs. Refused (NotASlotError) for an instant that is no slot of the
 * schedule within its bounds, and (SlotNotSkippableError) for a past slot, one already decided or
 * excluded, an archived routine, or past {@link MAX_PENDING_SKIPS}. A run already armed for the
 * slot is withdrawn by the leader, told through the routines' change channel. Answers the skip
 * (the first one when the slot was skipped already) and whether this call added it.
 */
export async function skipSlot(
  deps: SkipDeps,
  name: string,
  slot: number,
  opts: { now: number; by: string },
): Promise<{ skip: OperatorSkip; created: boolean }> {
  const record = await deps.routines.get(name);
  if (!record) throw new RoutineNotFoundError(name);
  const refuse = (why: string) => new SlotNotSkippableError(name, iso(slot), why);
  if (record.def.status === 'archived') throw refuse('the routine is archived');
  const refusal = skipRefusal(record.def, slot, opts.now);
  if (refusal?.kind === 'not-a-slot') {
    const near = (ms?: number) => (ms === undefined ? undefined : iso(ms));
    throw new NotASlotError(name, iso(slot), near(refusal.before), near(refusal.after));
  }
  if (refusal?.kind === 'past') throw refuse('its time has passed');
  if (refusal?.kind === 'excluded') throw refuse(`it is ${refusal.reason} already`);
  const claim = await deps.claims.get(name, slot);
  // A claim of a future slot is an armed run (withdrawable) unless it already started.
  if (claim && claim.arm !== 'armed' && claim.arm !== 'revoked') throw refuse('it is decided already');
  const existing = (await deps.skips.pending(name)).get(slot);
  if (existing) return { skip: existing, created: false };
  const skip = { slot, by: opts.by, at: opts.now };
  const added = await deps.skips.add(name, skip, opts.now - PRUNE_AFTER_MS);
  if (added === 'full') throw refuse(`the routine has ${MAX_PENDING_SKIPS} pending skips already`);
  if (added === 'exists') return { skip: (await deps.skips.pending(name)).get(slot) ?? skip, created: false };
  if (claim) await deps.changes.announce(name);
  return { skip, created: true };
}

/**
 * Undoes a pending skip; answers false when there was none. A slot whose armed run was withdrawn
 * for the skip is decided again when it comes (its fire still arrives).
 */
export async function unskipSlot(deps: Pick<SkipDeps, 'skips'>, name: string, slot: number): Promise<boolean> {
  return (await deps.skips.forget(name, slot)) > 0;
}
