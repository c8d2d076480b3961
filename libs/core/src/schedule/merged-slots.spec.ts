import { catchUp } from '../policy/catch-up.policy';
import { countSlotsBetween } from '../policy/count-slots';
import { previewFires } from './fire-preview';
import {
  nextFire,
  prevFire,
  preview,
  scheduledSlotsAfter,
  scheduledSlotsBetween,
  slotsBetween,
  slotTrigger,
  type Schedule,
} from './next-fire';
import { slotLedger } from './slot-ledger';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

/** Weekdays 09:00 in Berlin, weekends 12:00 UTC: the example of a routine with two schedules. */
const officeHours: Schedule = {
  triggers: [
    { kind: 'cron', cron: '0 9 * * 1-5', tz: 'Europe/Berlin', name: 'weekdays' },
    { kind: 'cron', cron: '0 12 * * 6,0' },
  ],
};

function take(s: Schedule, from: number, n: number) {
  const out: { at: string; trigger?: string }[] = [];
  for (const slot of scheduledSlotsAfter(s, from)) {
    out.push({ at: iso(slot.at), ...(slot.trigger !== undefined && { trigger: slot.trigger }) });
    if (out.length >= n) break;
  }
  return out;
}

describe('several triggers: one merged stream of slots', () => {
  it('yields every trigger’s slots in one ascending stream, each attributed to its trigger (name, else index)', () => {
    // 2026-06-05 is a Friday (Berlin is UTC+2 in summer).
    expect(take(officeHours, at('2026-06-05T00:00:00Z'), 4)).toEqual([
      { at: '2026-06-05T07:00:00.000Z', trigger: 'weekdays' },
      { at: '2026-06-06T12:00:00.000Z', trigger: '1' },
      { at: '2026-06-07T12:00:00.000Z', trigger: '1' },
      { at: '2026-06-08T07:00:00.000Z', trigger: 'weekdays' },
    ]);
    expect(preview(officeHours, at('2026-06-05T00:00:00Z'), 4)).toEqual(
      take(officeHours, at('2026-06-05T00:00:00Z'), 4).map((s) => at(s.at)),
    );
  });

  it('makes an instant two triggers share one slot, attributed to the first listed', () => {
    const s: Schedule = {
      triggers: [
        { kind: 'interval', everyMs: 120_000, name: 'even' },
        { kind: 'interval', everyMs: 60_000, name: 'every' },
      ],
    };
    const { slots } = scheduledSlotsBetween(s, 0, 360_000);
    expect(slots).toEqual([
      { at: 60_000, trigger: 'every' },
      { at: 120_000, trigger: 'even' },
      { at: 180_000, trigger: 'every' },
      { at: 240_000, trigger: 'even' },
      { at: 300_000, trigger: 'every' },
      { at: 360_000, trigger: 'even' },
    ]);
    // The order of the list decides, not which trigger is finer.
    const swapped = { triggers: [s.triggers![1]!, s.triggers![0]!] };
    expect(scheduledSlotsBetween(swapped, 0, 360_000).slots.every((x) => x.trigger === 'every')).toBe(true);
    expect(countSlotsBetween(s, 0, 360_001)).toEqual({ count: 6, exact: true });
  });

  it('walks backwards the same way: prevFire and slotTrigger agree with the forward stream', () => {
    const from = at('2026-06-05T00:00:00Z');
    const forward = take(officeHours, from, 6);
    const last = at(forward[5]!.at);
    expect(prevFire(officeHours, last)).toBe(at(forward[4]!.at));
    expect(nextFire(officeHours, from)).toBe(at(forward[0]!.at));
    for (const s of forward) expect(slotTrigger(officeHours, at(s.at))).toBe(s.trigger);
    expect(slotTrigger(officeHours, at('2026-06-05T07:00:01Z'))).toBeUndefined();
    // A single trigger has nothing to tell apart.
    expect(slotTrigger({ kind: 'interval', everyMs: 1000 }, 5000)).toBeUndefined();
  });

  it('keeps each trigger’s DST rule in its own zone (spring forward in New York, then in Berlin)', () => {
    const s: Schedule = {
      triggers: [
        { kind: 'cron', cron: '30 2 * * *', tz: 'America/New_York', name: 'ny' },
        { kind: 'cron', cron: '30 2 * * *', tz: 'Europe/Berlin', name: 'berlin' },
      ],
    };
    const ny = previewFires(s, at('2026-03-07T12:00:00Z'), 4).filter((f) => f.trigger === 'ny');
    // 2026-03-08 02:30 does not exist in New York: it fires at the first instant after the gap, 03:00 EDT.
    expect(ny[0]).toEqual({
      at: at('2026-03-08T07:00:00Z'),
      trigger: 'ny',
      local: '2026-03-08T03:00:00.000-04:00',
      dst: 'gap',
    });
    const berlin = previewFires(s, at('2026-03-28T12:00:00Z'), 4).filter((f) => f.trigger === 'berlin');
    expect(berlin[0]).toEqual({
      at: at('2026-03-29T01:00:00Z'),
      trigger: 'berlin',
      local: '2026-03-29T03:00:00.000+02:00',
      dst: 'gap',
    });
    expect(berlin[1]).toEqual({
      at: at('2026-03-30T00:30:00Z'),
      trigger: 'berlin',
      local: '2026-03-30T02:30:00.000+02:00',
    });
  });

  it('catches up across triggers as one routine: missed slots of both, one cursor', () => {
    const last = at('2026-06-05T07:00:00Z');
    const now = at('2026-06-08T07:00:30Z');
    const plan = catchUp({ trigger: officeHours, lastSlot: last, now, policy: 'all', misfireGraceMs: 60_000 });
    expect(plan.fire.map((f) => [iso(f.slot), f.source])).toEqual([
      ['2026-06-06T12:00:00.000Z', 'catch-up'],
      ['2026-06-07T12:00:00.000Z', 'catch-up'],
      ['2026-06-08T07:00:00.000Z', 'schedule'],
    ]);
    expect(plan.cursor).toBe(at('2026-06-08T07:00:00Z'));
    const skip = catchUp({ trigger: officeHours, lastSlot: last, now, policy: 'skip', misfireGraceMs: 60_000 });
    expect(skip.skip.map((s) => iso(s.slot))).toEqual(['2026-06-06T12:00:00.000Z', '2026-06-07T12:00:00.000Z']);
  });

  it('attributes each slot of the ledger to its trigger', () => {
    const from = at('2026-06-05T00:00:00Z');
    const to = at('2026-06-08T23:00:00Z');
    const ledger = slotLedger('office', { trigger: officeHours, from, to, now: to, records: [] });
    expect(ledger.ok && ledger.slots.map((s) => [iso(s.slot), s.trigger])).toEqual([
      ['2026-06-05T07:00:00.000Z', 'weekdays'],
      ['2026-06-06T12:00:00.000Z', '1'],
      ['2026-06-07T12:00:00.000Z', '1'],
      ['2026-06-08T07:00:00.000Z', 'weekdays'],
    ]);
    expect(slotsBetween(officeHours, from, to).slots).toHaveLength(4);
  });

  it('treats a routine with one trigger as before: no attribution', () => {
    const r: Schedule = { trigger: { kind: 'interval', everyMs: 1000 } };
    expect(take(r, 0, 2)).toEqual([{ at: iso(1000) }, { at: iso(2000) }]);
    expect(previewFires(r, 0, 1)).toEqual([{ at: 1000, local: '1970-01-01T00:00:01.000+00:00' }]);
  });
});
