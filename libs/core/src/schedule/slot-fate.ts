// The words of the slot ledger. Imports nothing (served to the CLI and console by `../words`).

/**
 * What became of one slot of a routine's schedule, as the ledger tells it:
 * - `ran`: a run was made for it (by the scheduler, a catch-up, a backfill or a replay of one of those);
 * - `skipped`: recorded skipped, with a reason (`SLOT_SKIP_REASONS`);
 * - `superseded`: missed, and catch-up policy `last` ran a newer slot instead;
 * - `due`: its time has come but no scheduler has decided it yet (its fire is on its way);
 * - `not-yet-due`: still ahead (an armed run may already wait for it);
 * - `no-record`: past and decided, but no record of it is left (retention removed it, the routine's
 *   index of its newest runs no longer holds it, or catch-up only counted it).
 */
export const SLOT_FATES = ['ran', 'skipped', 'superseded', 'due', 'not-yet-due', 'no-record'] as const;
export type SlotFate = (typeof SLOT_FATES)[number];

/**
 * Every reason the scheduler records a slot skipped with, as a bounded word (a launch failure's
 * message is cut to its kind): core's catch-up and overlap reasons (`SKIP_REASONS`, each of them here:
 * a unit test checks it), then
 * - `paused`: the routine was paused (an armed run withdrawn, a fire on its way, or a slot slept through);
 * - `backing-off` / `disabled`: the launcher waits after failed condition checks, or gave up;
 * - `condition-failed` / `candidates-failed`: the condition check or candidate provider threw or timed out;
 * - `nothing-owed` / `idle-backoff`: a selector routine's tick found nothing, or did not look;
 * - `claim-abandoned`: the dispatcher that claimed the slot died and no one finished it in time;
 * - `archived`: never recorded, only inferred by the ledger for the slots of an archived routine.
 * `other` stands for a reason this list does not know (never expected; kept so labels stay bounded).
 */
export const SLOT_SKIP_REASONS = [
  'catch-up-skip',
  'superseded',
  'catch-up-capped',
  'deadline-exceeded',
  'overlap-forbid',
  'overlap-buffer-full',
  'condition-false',
  'excluded',
  'skipped-by-operator',
  'paused',
  'backing-off',
  'disabled',
  'condition-failed',
  'candidates-failed',
  'nothing-owed',
  'idle-backoff',
  'claim-abandoned',
  'archived',
  'other',
] as const;
export type SlotSkipReason = (typeof SLOT_SKIP_REASONS)[number];

const KNOWN: ReadonlySet<string> = new Set(SLOT_SKIP_REASONS);

/** The bounded word of a recorded skip reason: `condition-failed: timed out` → `condition-failed`. */
export function slotSkipReason(recorded: string | undefined): SlotSkipReason {
  const word = (recorded ?? '').split(':', 1)[0]!.trim();
  return KNOWN.has(word) ? (word as SlotSkipReason) : 'other';
}
