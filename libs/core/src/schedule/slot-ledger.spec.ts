import type { Trigger } from '../model/trigger.schema';
import { SKIP_REASONS } from '../policy/skip-reason';
import { SLOT_SKIP_REASONS, slotSkipReason } from './slot-fate';
import { defaultLedgerFrom, MAX_LEDGER_SLOTS, slotLedger, slotOfRunId, type SlotRecord } from './slot-ledger';

const every10s: Trigger = { kind: 'interval', everyMs: 10_000 };
const T = 1_800_000_000_000; // a multiple of 10 s
const rec = (id: string, status: SlotRecord['status'], extra: Partial<SlotRecord> = {}): SlotRecord => ({
  id,
  status,
  source: 'schedule',
  attempt: status === 'skipped' ? 0 : 1,
  ...extra,
});

describe('slotOfRunId', () => {
  it('reads the slot, revision, backfill and replay from the ids the run maker mints', () => {
    expect(slotOfRunId('a-b.c', `r-a-b.c-${T}`)).toEqual({ slot: T, rev: 0, backfill: false, replay: false });
    expect(slotOfRunId('a-b.c', `r-a-b.c-${T}.2`)).toEqual({ slot: T, rev: 2, backfill: false, replay: false });
    expect(slotOfRunId('x', `r-x-${T}.k3`)).toEqual({ slot: T, rev: 0, backfill: false, replay: false });
    expect(slotOfRunId('x', `b-x-${T}`)).toEqual({ slot: T, rev: 0, backfill: true, replay: false });
    expect(slotOfRunId('x', `r-x-${T}.1.rabc`)).toEqual({ slot: T, rev: 1, backfill: false, replay: true });
  });

  it('gives no slot to manual, ad-hoc and keyed runs, nor to another routine whose name shares a prefix', () => {
    expect(slotOfRunId('x', 'm-abc-0123456789abcdef')).toBeUndefined();
    expect(slotOfRunId('x', 'k-0123')).toBeUndefined();
    expect(slotOfRunId('x', `r-x-y-${T}`)).toBeUndefined();
    expect(slotOfRunId('x-y', `r-x-${T}`)).toBeUndefined();
  });
});

describe('slotLedger', () => {
  const base = { trigger: every10s, from: T, to: T + 60_000, now: T + 35_000, cursor: T + 30_000 };

  it('lists every slot of the range once with its fate: ran, skipped, due, not yet due, no record', () => {
    const ledger = slotLedger('x', {
      ...base,
      records: [
        rec(`r-x-${T + 10_000}`, 'succeeded'),
        rec(`r-x-${T + 20_000}`, 'skipped', { reason: 'overlap-forbid' }),
        rec(`r-x-${T + 40_000}`, 'scheduled'),
        rec('m-abc-0000000000000000', 'succeeded', { source: 'manual' }),
      ],
    });
    expect(ledger.ok && ledger.slots.map((s) => [s.slot - T, s.fate, s.reason])).toEqual([
      [10_000, 'ran', undefined],
      [20_000, 'skipped', 'overlap-forbid'],
      [30_000, 'no-record', undefined],
      [40_000, 'not-yet-due', undefined],
      [50_000, 'not-yet-due', undefined],
      [60_000, 'not-yet-due', undefined],
    ]);
    const after = slotLedger('x', { ...base, cursor: T + 20_000, records: [] });
    expect(after.ok && after.slots.find((s) => s.slot === T + 30_000)?.fate).toBe('due');
  });

  it('keeps the newest revision as the fate and lists withdrawn ones; backfills and selector keys count for their slot', () => {
    const s = T + 10_000;
    const ledger = slotLedger('x', {
      ...base,
      records: [
        rec(`r-x-${s}`, 'canceled', { reason: 'not started: its routine was paused before its slot' }),
        rec(`r-x-${s}.1`, 'skipped', { reason: 'paused' }),
        rec(`r-x-${T + 20_000}`, 'skipped', { reason: 'catch-up-skip', source: 'catch-up' }),
        rec(`b-x-${T + 20_000}`, 'succeeded', { source: 'manual' }),
        rec(`r-x-${T + 30_000}`, 'succeeded', { key: 'a' }),
        rec(`r-x-${T + 30_000}.k1`, 'running', { key: 'b' }),
      ],
    });
    if (!ledger.ok) throw new Error('refused');
    const [first, second, third] = ledger.slots;
    expect(first).toMatchObject({ fate: 'skipped', reason: 'paused', recorded: true, runs: [] });
    expect(first!.withdrawn.map((r) => r.id)).toEqual([`r-x-${s}`]);
    expect(second).toMatchObject({ fate: 'ran' });
    expect(second!.runs.map((r) => r.id)).toEqual([`b-x-${T + 20_000}`]);
    expect(third!.runs.map((r) => r.key)).toEqual(['a', 'b']);
  });

  it('names a launch failure by its kind and keeps the message; catch-up last shows superseded', () => {
    const ledger = slotLedger('x', {
      ...base,
      records: [
        rec(`r-x-${T + 10_000}`, 'skipped', { reason: 'condition-failed: condition "c" did not answer' }),
        rec(`r-x-${T + 20_000}`, 'skipped', { reason: 'superseded', source: 'catch-up' }),
      ],
    });
    expect(ledger.ok && ledger.slots.slice(0, 2)).toMatchObject([
      { fate: 'skipped', reason: 'condition-failed', detail: 'condition-failed: condition "c" did not answer' },
      { fate: 'superseded', reason: 'superseded' },
    ]);
    expect(slotSkipReason('something new')).toBe('other');
    for (const r of SKIP_REASONS) expect(SLOT_SKIP_REASONS).toContain(r);
  });

  it('shows slots slept through while paused as skipped (paused), inferred, not recorded', () => {
    const ledger = slotLedger('x', { ...base, records: [], pauses: [{ from: T + 15_000, to: T + 25_000 }] });
    expect(ledger.ok && ledger.slots.slice(0, 3).map((s) => [s.fate, s.reason, s.recorded])).toEqual([
      ['no-record', undefined, true],
      ['skipped', 'paused', false],
      ['no-record', undefined, true],
    ]);
    const still = slotLedger('x', { ...base, records: [], cursor: T, pauses: [{ from: T + 15_000 }] });
    expect(still.ok && still.slots.slice(1, 3).map((s) => s.fate)).toEqual(['skipped', 'skipped']);
    const disabled = slotLedger('x', {
      ...base,
      records: [],
      cursor: T + 10_000,
      pauses: [{ from: T + 10_000, reason: 'disabled' }],
    });
    expect(disabled.ok && disabled.slots.slice(0, 3).map((s) => [s.fate, s.reason])).toEqual([
      ['no-record', undefined],
      ['skipped', 'disabled'],
      ['skipped', 'disabled'],
    ]);
  });

  it('lists a record the current schedule lacks, so nothing recorded is hidden (a doubled slot would show)', () => {
    const ledger = slotLedger('x', { ...base, records: [rec(`r-x-${T + 12_345}`, 'succeeded')] });
    expect(ledger.ok && ledger.slots.filter((s) => !s.onSchedule).map((s) => [s.slot - T, s.fate])).toEqual([
      [12_345, 'ran'],
    ]);
  });

  it('refuses a range over the limit instead of listing part of it', () => {
    const wide = slotLedger('x', { ...base, to: T + 10_000 * (MAX_LEDGER_SLOTS + 5), records: [] });
    expect(wide).toEqual({ ok: false, count: MAX_LEDGER_SLOTS + 1, limit: MAX_LEDGER_SLOTS });
    const exact = slotLedger('x', { ...base, to: T + 10_000 * MAX_LEDGER_SLOTS, records: [] });
    expect(exact.ok && exact.slots).toHaveLength(MAX_LEDGER_SLOTS);
  });

  it('follows the DST policy: one spring-forward slot at the transition, one fall-back slot at its first occurrence', () => {
    const berlin: Trigger = { kind: 'cron', cron: '30 2 * * *', tz: 'Europe/Berlin' };
    const spring = slotLedger('x', {
      trigger: berlin,
      from: Date.parse('2025-03-28T12:00:00Z'),
      to: Date.parse('2025-04-01T12:00:00Z'),
      now: Date.parse('2025-03-30T12:00:00Z'),
      cursor: Date.parse('2025-03-30T01:00:00Z'),
      records: [rec(`r-x-${Date.parse('2025-03-30T01:00:00Z')}`, 'succeeded')],
    });
    expect(spring.ok && spring.slots.map((s) => [new Date(s.slot).toISOString(), s.fate])).toEqual([
      ['2025-03-29T01:30:00.000Z', 'no-record'],
      ['2025-03-30T01:00:00.000Z', 'ran'], // 02:30 does not exist: 03:00 CEST
      ['2025-03-31T00:30:00.000Z', 'not-yet-due'],
      ['2025-04-01T00:30:00.000Z', 'not-yet-due'],
    ]);
    const ny: Trigger = { kind: 'cron', cron: '30 1 * * *', tz: 'America/New_York' };
    const fall = slotLedger('x', {
      trigger: ny,
      from: Date.parse('2025-11-02T00:00:00Z'),
      to: Date.parse('2025-11-03T00:00:00Z'),
      now: Date.parse('2025-11-03T00:00:00Z'),
      records: [],
    });
    expect(fall.ok && fall.slots.map((s) => new Date(s.slot).toISOString())).toEqual(['2025-11-02T05:30:00.000Z']);
  });
});

describe('defaultLedgerFrom', () => {
  it('reaches back n slots before to (to itself counted), or a day for a trigger without slots', () => {
    expect(defaultLedgerFrom(every10s, T + 5_000, 3)).toBe(T - 20_000 - 1);
    expect(defaultLedgerFrom(every10s, T, 1)).toBe(T - 1);
    expect(defaultLedgerFrom({ kind: 'manual' }, T, 50)).toBe(T - 86_400_000);
  });
});
