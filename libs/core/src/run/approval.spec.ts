import { APPROVAL_EXPIRED_REASON, REJECTED_REASON } from './approval-state';
import {
  APPROVAL_HOLD_MS,
  approvalFor,
  approvalViewOf,
  decideApproval,
  gateVerdict,
  openGate,
  releaseDelayMs,
  type ApprovalGate,
} from './approval';

const NOW = 1_700_000_000_000;

describe('approval gates', () => {
  it("takes the routine's own gate over its queue's, and none that is not required", () => {
    expect(approvalFor(undefined, undefined)).toBeUndefined();
    expect(approvalFor({ required: true }, undefined)).toEqual({ required: true });
    expect(approvalFor({ required: true }, { required: false })).toBeUndefined();
    expect(approvalFor(undefined, { required: true, expiresAfterMs: 5 })).toEqual({
      required: true,
      expiresAfterMs: 5,
    });
    expect(approvalFor({ required: false }, undefined)).toBeUndefined();
  });

  it('holds a run until its expiry, else a year, and keeps when it was due', () => {
    expect(openGate({ required: true }, NOW)).toEqual({ gate: { s: 'w' }, holdMs: APPROVAL_HOLD_MS });
    expect(openGate({ required: true, expiresAfterMs: 60_000 }, NOW, NOW + 5_000)).toEqual({
      gate: { s: 'w', e: NOW + 60_000, d: NOW + 5_000 },
      holdMs: 60_000,
    });
    expect(openGate({ required: true }, NOW, NOW - 1).gate).toEqual({ s: 'w' });
  });

  it('takes one decision on a waiting, held gate and refuses every other', () => {
    const waiting: ApprovalGate = { s: 'w', e: NOW + 1_000 };
    const approve = { kind: 'approve' as const, by: 'ops', at: NOW };
    expect(decideApproval(waiting, true, approve)).toEqual({ gate: { s: 'a', e: NOW + 1_000, by: 'ops', at: NOW } });
    expect(decideApproval(waiting, true, { kind: 'reject', by: 'ops', at: NOW, reason: 'no' })).toEqual({
      gate: { s: 'r', e: NOW + 1_000, by: 'ops', at: NOW, r: 'no' },
    });
    expect(decideApproval(undefined, true, approve)).toEqual({ refused: 'not-gated' });
    expect(decideApproval({ ...waiting, s: 'a' }, true, approve)).toEqual({ refused: 'not-waiting' });
    expect(decideApproval({ ...waiting, s: 'r' }, true, approve)).toEqual({ refused: 'not-waiting' });
    // Released to the workers, or past its expiry: the worker rejects it.
    expect(decideApproval(waiting, false, approve)).toEqual({ refused: 'not-waiting' });
    expect(decideApproval(waiting, true, { ...approve, at: NOW + 1_000 })).toEqual({ refused: 'not-waiting' });
  });

  it('releases an approved run now, or when it was due', () => {
    expect(releaseDelayMs({ s: 'a' }, NOW)).toBe(0);
    expect(releaseDelayMs({ s: 'a', d: NOW + 500 }, NOW)).toBe(500);
    expect(releaseDelayMs({ s: 'a', d: NOW - 500 }, NOW)).toBe(0);
  });

  it('tells a worker to run, cancel or send back the run it was handed', () => {
    expect(gateVerdict(undefined, NOW)).toEqual({ run: true });
    expect(gateVerdict({ s: 'a' }, NOW)).toEqual({ run: true });
    expect(gateVerdict({ s: 'r' }, NOW)).toEqual({ cancel: REJECTED_REASON });
    expect(gateVerdict({ s: 'r', r: 'too risky' }, NOW)).toEqual({ cancel: 'too risky' });
    expect(gateVerdict({ s: 'w', e: NOW }, NOW)).toEqual({ cancel: APPROVAL_EXPIRED_REASON });
    // Handed out before its expiry (a worker's clock ahead): back until then.
    expect(gateVerdict({ s: 'w', e: NOW + 10 }, NOW)).toEqual({ holdUntil: NOW + 10 });
    expect(gateVerdict({ s: 'w' }, NOW)).toEqual({ holdUntil: NOW + APPROVAL_HOLD_MS });
  });

  it('shows where an approval stands, expired when a waiting gate ended by its expiry', () => {
    expect(approvalViewOf({ s: 'w', e: NOW })).toEqual({ required: true, state: 'waiting', expiresAt: NOW });
    expect(approvalViewOf({ s: 'a', by: 'ops', at: NOW })).toEqual({
      required: true,
      state: 'approved',
      by: 'ops',
      at: NOW,
    });
    expect(approvalViewOf({ s: 'r', by: 'ops', at: NOW, r: 'no' })).toMatchObject({ state: 'rejected', reason: 'no' });
    expect(approvalViewOf({ s: 'w', e: NOW }, { at: NOW + 3, reason: APPROVAL_EXPIRED_REASON })).toEqual({
      required: true,
      state: 'expired',
      at: NOW + 3,
      expiresAt: NOW,
    });
  });
});
