import type { RunSource, RunStatus } from '../run/run-status';
import { NAME_PATTERN } from '../model/name.schema';
import { scheduledSlotsBetween, slotsBefore, type Schedule } from './next-fire';
import { slotSkipReason, type SlotFate, type SlotSkipReason } from './slot-fate';

/** The most slots one ledger lists: a longer range is refused, so a reader never loads unbounded data. */
export const MAX_LEDGER_SLOTS = 1000;

/**
 * A ledger's default start: just before the `n`-th slot up to `to` (so `(from, to]` holds the last `n`
 * slots), or a day before `to` when the trigger has fewer (a once or manual routine).
 */
export function defaultLedgerFrom(trigger: Schedule, to: number, n: number): number {
  let from = to - 86_400_000;
  let seen = 0;
  for (const at of slotsBefore(trigger, to + 1)) {
    from = at - 1;
    if (++seen >= n) break;
  }
  return from;
}

/** How a run id names its slot: `r-<routine>-<slot>[.<rev>][.k<n>]` (the scheduler's), `b-…` (a backfill), a replay adds `.r<…>`. */
export interface SlotRunId {
  slot: number;
  rev: number;
  backfill: boolean;
  replay: boolean;
}

/**
 * The slot a run of `routine` was made for, read from its id; undefined for a run that has no slot
 * (manual, ad-hoc, idempotency-keyed, a plain BullMQ job).
 */
export function slotOfRunId(routine: string, id: string): SlotRunId | undefined {
  if (!NAME_PATTERN.test(routine)) return undefined;
  const head = id.slice(0, 2);
  if ((head !== 'r-' && head !== 'b-') || !id.startsWith(`${routine}-`, 2)) return undefined;
  const m = /^(\d+)(?:\.(\d+))?(?:\.k\d+)?((?:\.r[0-9a-z]+)*)$/.exec(id.slice(routine.length + 3));
  if (!m) return undefined;
  const slot = Number(m[1]);
  const rev = Number(m[2] ?? 0);
  if (!Number.isSafeInteger(slot) || !Number.isSafeInteger(rev)) return undefined;
  return { slot, rev, backfill: head === 'b-', replay: m[3] !== '' };
}

/** One record the ledger merges: a run (or skipped record) of the routine that names a slot. */
export interface SlotRecord {
  id: string;
  status: RunStatus;
  source: RunSource;
  attempt: number;
  /** Why it was skipped or canceled, as recorded. */
  reason?: string;
  key?: string;
  /** `buffer-one`: the run was made while this one was active, and waited for it to end (still does while `scheduled`). */
  bufferedBehind?: string;
}

/** One slot of the ledger. */
export interface LedgerSlot {
  slot: number;
  /** For a routine with a `triggers` list: the trigger the slot is attributed to (its name, else its index). */
  trigger?: string;
  fate: SlotFate;
  /** False for a slot the current schedule does not have but a record names (the trigger changed since). */
  onSchedule: boolean;
  /** For `skipped` and `superseded`: the bounded word; `detail` keeps the recorded text when it says more. */
  reason?: SlotSkipReason;
  detail?: string;
  /** False when the fate is inferred, not recorded: a slot slept through while paused. */
  recorded: boolean;
  /** The slot's runs: its current revision's (one per selector key), backfills and replays of them. */
  runs: SlotRecord[];
  /** Earlier revisions: runs armed ahead and withdrawn (the routine changed or paused), then decided again. */
  withdrawn: SlotRecord[];
}

export interface LedgerInput {
  /** The routine (or one trigger): with several triggers each slot names the one it came from. */
  trigger: Schedule;
  /**
   * Why a slot still ahead will be skipped (an exclusion, an operator's skip), if it will: shown on
   * its `not-yet-due` entry as `reason`/`detail` before it is recorded.
   */
  ahead?: (slot: number) => string | undefined;
  /** The range `(from, to]`, epoch ms. */
  from: number;
  to: number;
  now: number;
  /** The routine's records that name a slot in the range (any order; others are ignored). */
  records: SlotRecord[];
  /** The routine's cursor: the newest slot a scheduler decided (undefined: none yet). */
  cursor?: number;
  /**
   * Windows `(from, to]` in which the routine fired nothing (`to` undefined: still so), and why:
   * `paused` (the default), `disabled` (the launcher gave up), `archived`. Their slots without a
   * record are shown skipped with that reason, inferred.
   */
  pauses?: { from: number; to?: number; reason?: 'paused' | 'disabled' | 'archived' }[];
  /** Defaults to {@link MAX_LEDGER_SLOTS}. */
  limit?: number;
}

export type Ledger = { ok: true; slots: LedgerSlot[] } | { ok: false; count: number; limit: number };

interface Found {
  current: SlotRecord[];
  rev: number;
  withdrawn: SlotRecord[];
  extra: SlotRecord[];
}

function gather(routine: string, records: readonly SlotRecord[], within: (s: number) => boolean) {
  const bySlot = new Map<number, Found>();
  for (const r of records) {
    const at = slotOfRunId(routine, r.id);
    if (!at || !within(at.slot)) continue;
    const f = bySlot.get(at.slot) ?? { current: [], rev: -1, withdrawn: [], extra: [] };
    bySlot.set(at.slot, f);
    if (at.backfill || at.replay) f.extra.push(r);
    else if (at.rev > f.rev) {
      f.withdrawn.push(...f.current);
      f.current = [r];
      f.rev = at.rev;
    } else if (at.rev === f.rev) f.current.push(r);
    else f.withdrawn.push(r);
  }
  return bySlot;
}

const byId = (a: SlotRecord, b: SlotRecord) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function fateOf(slot: number, f: Found | undefined, input: LedgerInput): Omit<LedgerSlot, 'slot' | 'onSchedule'> {
  const runs = f ? [...f.current, ...f.extra].filter((r) => r.status !== 'skipped').sort(byId) : [];
  const withdrawn = f ? [...f.withdrawn].sort(byId) : [];
  const base = { recorded: true, runs, withdrawn };
  if (runs.length > 0) return { ...base, fate: slot > input.now ? 'not-yet-due' : 'ran' };
  const skip = f?.current.find((r) => r.status === 'skipped');
  if (skip) {
    const reason = slotSkipReason(skip.reason);
    const detail = skip.reason !== undefined && skip.reason !== reason ? { detail: skip.reason } : {};
    return { ...base, fate: reason === 'superseded' ? 'superseded' : 'skipped', reason, ...detail };
  }
  if (slot > input.now) {
    const why = input.ahead?.(slot);
    if (why === undefined) return { ...base, fate: 'not-yet-due' };
    const reason = slotSkipReason(why);
    return { ...base, fate: 'not-yet-due', reason, ...(why !== reason && { detail: why }), recorded: false };
  }
  const idle = (input.pauses ?? []).find((p) => slot > p.from && (p.to === undefined || slot <= p.to));
  if (idle) return { ...base, fate: 'skipped', reason: idle.reason ?? 'paused', recorded: false };
  if (input.cursor === undefined || slot > input.cursor) return { ...base, fate: 'due' };
  return { ...base, fate: 'no-record' };
}

/**
 * The slot ledger of `(from, to]`: every slot of the trigger in the range with its fate, merged with
 * the records that name a slot (a slot a record names but the current schedule lacks is listed too,
 * `onSchedule: false`, so nothing recorded is hidden). Refuses (`ok: false`, with the count up to one
 * past the limit) a range holding more than `limit` slots. Pure: `now` and the records are given.
 * `routine` is the routine's name (run ids carry it).
 */
export function slotLedger(routine: string, input: LedgerInput): Ledger {
  const limit = Math.min(input.limit ?? MAX_LEDGER_SLOTS, MAX_LEDGER_SLOTS);
  const planned = scheduledSlotsBetween(input.trigger, input.from, input.to, limit);
  const within = (s: number) => s > input.from && s <= input.to;
  const found = gather(routine, input.records, within);
  const slots = new Set<number>(planned.slots.map((s) => s.at));
  for (const s of found.keys()) slots.add(s);
  if (planned.truncated || slots.size > limit) return { ok: false, count: Math.max(slots.size, limit + 1), limit };
  const onSchedule = new Map(planned.slots.map((s) => [s.at, s.trigger]));
  return {
    ok: true,
    slots: [...slots]
      .sort((a, b) => a - b)
      .map((slot) => {
        const trigger = onSchedule.get(slot);
        return {
          slot,
          ...(trigger !== undefined && { trigger }),
          onSchedule: onSchedule.has(slot),
          ...fateOf(slot, found.get(slot), input),
        };
      }),
  };
}
