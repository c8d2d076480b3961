import { decodeDecision, type SlotDecision } from './slot-decision';

/**
 * A slot claim as stored (see claimSlot-4.lua): `<state><arm><rev>|<decision JSON>`.
 * - state: `pending` — decided, outcome not yet written; `done` — outcome written, final.
 * - arm: `none`; `armed` — its run was created ahead of the slot and has not started (revocable);
 *   `started` — that run started; `revoked` — that run was withdrawn, the slot may be taken over.
 * - rev: the slot's revision; the run id of revision n > 0 is `r-<routine>-<slot>.<n>`.
 */
export interface SlotClaim {
  state: 'pending' | 'done';
  arm: 'none' | 'armed' | 'started' | 'revoked';
  rev: number;
  decision?: SlotDecision;
  /** The stored value, for compare-and-set. */
  raw: string;
}

const ARM: Record<string, SlotClaim['arm']> = { '-': 'none', a: 'armed', s: 'started', r: 'revoked' };

/** Parses a stored claim; undefined for none or a value this version does not understand. Pure. */
export function parseClaim(raw: string | null | undefined): SlotClaim | undefined {
  const m = raw ? /^([pd])([-asr])(\d+)\|(.*)$/s.exec(raw) : null;
  if (!m) return undefined;
  return {
    state: m[1] === 'p' ? 'pending' : 'done',
    arm: ARM[m[2]!]!,
    rev: Number(m[3]),
    decision: decodeDecision(m[4]),
    raw: raw!,
  };
}

/** The value a fresh claim is stored with (what claimSlot-4.lua writes), for compare-and-set. */
export function pendingClaimValue(armed: boolean, rev: number, decision: string): string {
  return `p${armed ? 'a' : '-'}${rev}|${decision}`;
}

/**
 * How long after its slot (or after it was decided, if later) a pending fire decision may still be
 * re-applied by someone other than its maker. Past that, it is resolved without a run
 * (`claim-abandoned`): the slot may have run already and been removed by retention, and the marker
 * that proves it (see {@link pendingClaimTtlMs}) has expired. Completers normally arrive within
 * seconds: a retried fire, the watchdog, the fire of an armed slot.
 */
export const PENDING_WINDOW_MS = 2 * 60_000;

/** Margin between the pending window and the expiry of what it relies on. */
const EXPIRY_MARGIN_MS = 60_000;

/** A done claim that was never armed only settles racing dispatchers; the cursor covers the rest. */
export const DONE_CLAIM_MS = 60_000;

/** An armed claim is read by the worker when the run starts, which a backlog may delay. */
export const ARMED_CLAIM_MS = 10 * 60_000;

/** Time until `slot` (0 once it has come). */
const ahead = (slot: number, now: number) => Math.max(0, slot - now);

/**
 * TTL of a pending claim, and of the BullMQ deduplication marker a slot's run is created with:
 * the marker outlives retention (BullMQ keeps it when a finished job is removed), so a decision
 * re-applied within the pending window never creates the run twice.
 */
export function pendingClaimTtlMs(slot: number, now: number): number {
  return ahead(slot, now) + PENDING_WINDOW_MS + EXPIRY_MARGIN_MS;
}

/** TTL of a claim once done. */
export function doneClaimTtlMs(claim: Pick<SlotClaim, 'arm'>, slot: number, now: number): number {
  return claim.arm === 'none' ? DONE_CLAIM_MS : ahead(slot, now) + ARMED_CLAIM_MS;
}

/** Whether a pending fire decision may still be re-applied at `now` (see {@link PENDING_WINDOW_MS}). */
export function withinPendingWindow(slot: number, decidedAt: number, now: number): boolean {
  return now <= Math.max(slot, decidedAt) + PENDING_WINDOW_MS;
}

/** An armed run of a routine as listed in its state: `<slot>:<version>:<queue>`. */
export interface ArmedEntry {
  slot: number;
  version: number;
  queue: string;
}

export function encodeArmedEntry(e: ArmedEntry): string {
  return `${e.slot}:${e.version}:${e.queue}`;
}

/** Parses a comma list of armed entries, skipping malformed ones. Pure. */
export function decodeArmedEntries(raw: string | undefined): ArmedEntry[] {
  if (!raw) return [];
  return raw.split(',').flatMap((s) => {
    const m = /^(\d+):(\d+):(.+)$/.exec(s);
    return m ? [{ slot: Number(m[1]), version: Number(m[2]), queue: m[3]! }] : [];
  });
}
