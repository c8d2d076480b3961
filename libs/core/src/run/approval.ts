import type { ApprovalPolicy } from '../model/approval.schema';
import { APPROVAL_EXPIRED_REASON, REJECTED_REASON, type ApprovalState } from './approval-state';

/**
 * How long a gated run is held back when no expiry is set: far longer than anyone waits, so BullMQ
 * never releases it by itself (a year keeps BullMQ's delayed score exact, as for buffer-one runs).
 */
export const APPROVAL_HOLD_MS = 365 * 24 * 3_600_000;

/**
 * The gate a run carries on its job, in short fields (it is read back on every start): `s` where
 * it stands (`w` waiting, `a` approved, `r` rejected), `e` when it expires, `d` when the run was
 * due had it needed no approval (a future slot or run-at), `by`/`at`/`r` who decided, when, why.
 */
export interface ApprovalGate {
  s: 'w' | 'a' | 'r';
  e?: number;
  d?: number;
  by?: string;
  at?: number;
  r?: string;
}

/** The approval of a run as its view shows it. */
export interface ApprovalView {
  required: true;
  state: ApprovalState;
  by?: string;
  at?: number;
  expiresAt?: number;
  reason?: string;
}

/** The gate a new run needs: its routine's own policy when it has one, else its queue's; undefined for none. */
export function approvalFor(queue?: ApprovalPolicy, routine?: ApprovalPolicy): ApprovalPolicy | undefined {
  const policy = routine ?? queue;
  return policy?.required ? policy : undefined;
}

/**
 * The gate of a run made at `now` under `policy`, and how long its job is held back: until its
 * expiry (when it fires, a worker rejects it unless it was approved), else {@link APPROVAL_HOLD_MS}.
 * `dueAt`: when the run would have been due without approval (later than now), kept for the release.
 */
export function openGate(policy: ApprovalPolicy, now: number, dueAt?: number): { gate: ApprovalGate; holdMs: number } {
  const gate: ApprovalGate = { s: 'w' };
  if (policy.expiresAfterMs !== undefined) gate.e = now + policy.expiresAfterMs;
  if (dueAt !== undefined && dueAt > now) gate.d = dueAt;
  return { gate, holdMs: gate.e !== undefined ? gate.e - now : APPROVAL_HOLD_MS };
}

export interface ApprovalDecision {
  kind: 'approve' | 'reject';
  by: string;
  at: number;
  reason?: string;
}

/** Why an approve or reject changed nothing: the run carries no gate, or its gate is no longer waiting. */
export type ApprovalRefusal = 'not-gated' | 'not-waiting';

/**
 * An operator's approve or reject of a gate. Only a gate that still waits, before its expiry, on a
 * job still held back (`held`: nothing released it to the workers), takes a decision; anything else is
 * refused, so of two decisions racing on one run exactly one is taken (the store applies this
 * atomically against the job as it was read).
 */
export function decideApproval(
  gate: ApprovalGate | undefined,
  held: boolean,
  d: ApprovalDecision,
): { gate: ApprovalGate } | { refused: ApprovalRefusal } {
  if (!gate) return { refused: 'not-gated' };
  // Past its expiry the run is the worker's to reject, whether or not it has been handed out yet.
  if (gate.s !== 'w' || !held || (gate.e !== undefined && d.at >= gate.e)) return { refused: 'not-waiting' };
  const next: ApprovalGate = { ...gate, s: d.kind === 'approve' ? 'a' : 'r', by: d.by, at: d.at };
  if (d.reason !== undefined) next.r = d.reason;
  return { gate: next };
}

/** How long an approved run still waits for the time it was due (0: release it now). */
export function releaseDelayMs(gate: ApprovalGate, now: number): number {
  return gate.d !== undefined && gate.d > now ? gate.d - now : 0;
}

/** What a worker does with a gated run it was handed. */
export type GateVerdict = { run: true } | { cancel: string } | { holdUntil: number };

/**
 * What a worker does with a run it was handed, by its gate: run it (none, or approved); end it
 * canceled (rejected by an operator, or released at its expiry while still waiting: it expired);
 * or, still waiting before its expiry (released early: a worker's clock ahead of the cluster's),
 * send it back to wait until then.
 */
export function gateVerdict(gate: ApprovalGate | undefined, now: number): GateVerdict {
  if (!gate || gate.s === 'a') return { run: true };
  if (gate.s === 'r') return { cancel: gate.r ?? REJECTED_REASON };
  if (gate.e !== undefined && now >= gate.e) return { cancel: APPROVAL_EXPIRED_REASON };
  return { holdUntil: gate.e ?? now + APPROVAL_HOLD_MS };
}

/**
 * The approval a run's view shows. A gate still `w` on a run that ended canceled expired (its
 * worker ended it at `endedAt`).
 */
export function approvalViewOf(gate: ApprovalGate, ended?: { at: number; reason?: string }): ApprovalView {
  const view: ApprovalView = { required: true, state: 'waiting' };
  if (gate.e !== undefined) view.expiresAt = gate.e;
  if (gate.s === 'a' || gate.s === 'r') {
    view.state = gate.s === 'a' ? 'approved' : 'rejected';
    if (gate.by !== undefined) view.by = gate.by;
    if (gate.at !== undefined) view.at = gate.at;
    if (gate.r !== undefined) view.reason = gate.r;
  } else if (ended?.reason === APPROVAL_EXPIRED_REASON) {
    view.state = 'expired';
    view.at = ended.at;
  }
  return view;
}
