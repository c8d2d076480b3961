import fc from 'fast-check';
import type { Trigger } from '../model/trigger.schema';
import { slotsBetween } from '../schedule/next-fire';
import { catchUp, catchUpOne, type CatchUpInput } from './catch-up.policy';

const NOW = 1_749_996_000_000; // 2025-06-15T14:00:00Z, a whole hour
const S = 1000;
const every10s: Trigger = { kind: 'interval', everyMs: 10 * S };
const base = { trigger: every10s, now: NOW };
/** Slots as "seconds before NOW" for readable tables. */
const ago = (r: { slot: number }[]) => r.map((x) => (NOW - x.slot) / S);

describe('catchUp', () => {
  it('fires the due slot when nothing was missed', () => {
    expect(catchUp({ ...base, lastSlot: NOW - 10 * S, policy: 'skip' })).toEqual({
      fire: [{ slot: NOW, source: 'schedule' }],
      skip: [],
      cursor: NOW,
    });
  });

  it('does nothing when no slot is due', () => {
    expect(catchUp({ ...base, lastSlot: NOW, policy: 'all' })).toEqual({ fire: [], skip: [], cursor: NOW });
    expect(catchUp({ ...base, now: NOW + 5 * S, lastSlot: NOW, policy: 'all' })).toEqual({
      fire: [],
      skip: [],
      cursor: NOW,
    });
    expect(catchUp({ ...base, lastSlot: NOW + 60 * S, policy: 'all' })).toEqual({
      fire: [],
      skip: [],
      cursor: NOW + 60 * S,
    });
  });

  it.each<[CatchUpInput['policy'], number[], [number, string][]]>([
    [
      'skip',
      [0],
      [
        [30, 'catch-up-skip'],
        [20, 'catch-up-skip'],
        [10, 'catch-up-skip'],
      ],
    ],
    [
      'last',
      [0],
      [
        [30, 'superseded'],
        [20, 'superseded'],
        [10, 'superseded'],
      ],
    ],
    ['all', [30, 20, 10, 0], []],
  ])('policy %s with an on-time slot: fires %j', (policy, fired, skipped) => {
    const r = catchUp({ ...base, lastSlot: NOW - 40 * S, policy, misfireGraceMs: 5 * S });
    expect(ago(r.fire)).toEqual(fired);
    expect(r.skip.map((s) => [(NOW - s.slot) / S, s.reason])).toEqual(skipped);
    expect(r.cursor).toBe(NOW);
    expect(r.fire.at(-1)).toEqual({ slot: NOW, source: 'schedule' });
    expect(r.fire.slice(0, -1).every((f) => f.source === 'catch-up')).toBe(true);
  });

  it.each<[CatchUpInput['policy'], number[], [number, string][]]>([
    [
      'skip',
      [],
      [
        [165, 'catch-up-skip'],
        [105, 'catch-up-skip'],
        [45, 'catch-up-skip'],
      ],
    ],
    [
      'last',
      [45],
      [
        [165, 'superseded'],
        [105, 'superseded'],
      ],
    ],
    ['all', [165, 105, 45], []],
  ])('policy %s after downtime (newest slot later than the grace): fires %j s ago', (policy, fired, skipped) => {
    const everyMinute: Trigger = { kind: 'interval', everyMs: 60 * S };
    const now = NOW + 45 * S; // newest slot (NOW) is 45 s late
    const r = catchUp({ trigger: everyMinute, now, lastSlot: NOW - 180 * S, policy, misfireGraceMs: 30 * S });
    expect(r.fire.map((f) => (now - f.slot) / S)).toEqual(fired);
    expect(r.fire.every((f) => f.source === 'catch-up')).toBe(true);
    expect(r.skip.map((s) => [(now - s.slot) / S, s.reason])).toEqual(skipped);
    expect(r.cursor).toBe(NOW);
  });

  it('fires every slot within the misfire grace normally, so a delay of seconds is never a catch-up', () => {
    for (const policy of ['skip', 'last', 'all'] as const) {
      const r = catchUp({ ...base, now: NOW + 3 * S, lastSlot: NOW - 40 * S, policy, misfireGraceMs: 45 * S });
      expect(r.fire).toEqual([30, 20, 10, 0].map((ago) => ({ slot: NOW - ago * S, source: 'schedule' })));
      expect(r.skip).toEqual([]);
    }
    expect(catchUp({ ...base, lastSlot: NOW - 40 * S, policy: 'skip' }).fire).toHaveLength(4); // default: 60 s
  });

  it('decides one slot on its own as catch-up would', () => {
    const one = (late: number, policy: 'skip' | 'last' | 'all', extra = {}) =>
      catchUpOne(NOW, { now: NOW + late, policy, misfireGraceMs: 10 * S, ...extra });
    expect(one(5 * S, 'skip')).toEqual({ fire: { slot: NOW, source: 'schedule' } });
    expect(one(20 * S, 'skip')).toEqual({ skip: { slot: NOW, reason: 'catch-up-skip' } });
    expect(one(20 * S, 'last')).toEqual({ fire: { slot: NOW, source: 'catch-up' } });
    expect(one(20 * S, 'all')).toEqual({ fire: { slot: NOW, source: 'catch-up' } });
    expect(one(5 * S, 'all', { startingDeadlineMs: S })).toEqual({ skip: { slot: NOW, reason: 'deadline-exceeded' } });
  });

  it('caps policy all at the newest maxCatchUp missed slots', () => {
    const r = catchUp({ ...base, lastSlot: NOW - 60 * S, policy: 'all', maxCatchUp: 2, misfireGraceMs: 5 * S });
    expect(ago(r.fire)).toEqual([20, 10, 0]);
    expect(r.skip.map((s) => [(NOW - s.slot) / S, s.reason])).toEqual([
      [50, 'catch-up-capped'],
      [40, 'catch-up-capped'],
      [30, 'catch-up-capped'],
    ]);
  });

  it('skips slots past the starting deadline, under every policy, on-time slot included', () => {
    const r = catchUp({ ...base, lastSlot: NOW - 40 * S, policy: 'all', startingDeadlineMs: 15 * S });
    expect(ago(r.fire)).toEqual([10, 0]);
    expect(r.skip).toEqual([
      { slot: NOW - 30 * S, reason: 'deadline-exceeded' },
      { slot: NOW - 20 * S, reason: 'deadline-exceeded' },
    ]);
    const late = catchUp({
      ...base,
      now: NOW + 5 * S,
      lastSlot: NOW - 10 * S,
      policy: 'last',
      startingDeadlineMs: 1 * S,
    });
    expect(late.fire).toEqual([]);
    expect(late.skip).toEqual([{ slot: NOW, reason: 'deadline-exceeded' }]);
  });

  it('policy last fires the newest missed slot still inside the deadline', () => {
    const everyMinute: Trigger = { kind: 'interval', everyMs: 60 * S };
    const now = NOW + 50 * S;
    const input = { trigger: everyMinute, now, lastSlot: NOW - 120 * S, misfireGraceMs: 0, startingDeadlineMs: 55 * S };
    const r = catchUp({ ...input, policy: 'last' });
    expect(r.fire).toEqual([{ slot: NOW, source: 'catch-up' }]);
    expect(r.skip).toEqual([{ slot: NOW - 60 * S, reason: 'deadline-exceeded' }]);
  });

  it('lists at most maxSkipRecords skipped slots (the newest) and counts the rest', () => {
    const r = catchUp({ ...base, lastSlot: NOW - 60 * S, policy: 'skip', maxSkipRecords: 2, misfireGraceMs: 5 * S });
    expect(ago(r.fire)).toEqual([0]);
    expect(ago(r.skip)).toEqual([20, 10]);
    expect(r.unlisted).toEqual({ count: 3, exact: true, reason: 'catch-up-skip' });
  });

  it('stays bounded over a huge backlog', () => {
    const week = 7 * 86_400 * S;
    const r = catchUp({
      trigger: { kind: 'interval', everyMs: S },
      now: NOW,
      lastSlot: NOW - week,
      policy: 'all',
      misfireGraceMs: 0,
    });
    expect(r.fire).toHaveLength(101);
    expect(r.skip).toHaveLength(1000);
    expect(r.unlisted).toEqual({ count: 7 * 86_400 - 1101, exact: true, reason: 'catch-up-capped' });
    const cron = catchUp({
      trigger: { kind: 'cron', cron: '* * * * * *' },
      now: NOW,
      lastSlot: NOW - week,
      policy: 'skip',
      startingDeadlineMs: 0,
    });
    expect(cron.fire).toEqual([{ slot: NOW, source: 'schedule' }]);
    // 2100 enumerated (1 fired, 1000 listed, 1099 dropped) + at least 10000 older ones counted
    expect(cron.unlisted).toEqual({ count: 11_099, exact: false, reason: 'deadline-exceeded' });
  });

  it('works on cron and once triggers', () => {
    const hourly: Trigger = { kind: 'cron', cron: '0 * * * *' };
    const now = Date.parse('2025-06-15T10:00:30Z');
    const r = catchUp({ trigger: hourly, now, lastSlot: Date.parse('2025-06-15T07:00:00Z'), policy: 'last' });
    expect(r.fire).toEqual([{ slot: Date.parse('2025-06-15T10:00:00Z'), source: 'schedule' }]);
    expect(r.skip.map((s) => s.reason)).toEqual(['superseded', 'superseded']);
    const once: Trigger = { kind: 'once', at: '2025-06-15T09:00:00Z' };
    expect(catchUp({ trigger: once, now, lastSlot: 0, policy: 'last' }).fire).toEqual([
      { slot: Date.parse('2025-06-15T09:00:00Z'), source: 'catch-up' },
    ]);
    expect(catchUp({ trigger: { kind: 'manual' }, now, lastSlot: 0, policy: 'all' })).toEqual({
      fire: [],
      skip: [],
      cursor: 0,
    });
  });

  describe('properties', () => {
    const arb = fc.record({
      everyMs: fc.integer({ min: 1000, max: 120_000 }),
      offset: fc.integer({ min: 0, max: 999 }),
      back: fc.integer({ min: 0, max: 600_000 }),
      jitter: fc.integer({ min: 0, max: 5_000 }),
      maxCatchUp: fc.integer({ min: 1, max: 20 }),
      misfireGraceMs: fc.integer({ min: -1, max: 30_000 }),
    });

    it('policy all fires exactly the missed slots, in order, none twice, capped', () => {
      fc.assert(
        fc.property(arb, ({ everyMs, offset, back, jitter, maxCatchUp, misfireGraceMs }) => {
          const trigger: Trigger = { kind: 'interval', everyMs, offsetMs: offset % everyMs };
          const now = NOW + jitter;
          const lastSlot = now - back;
          const r = catchUp({ trigger, now, lastSlot, policy: 'all', maxCatchUp, misfireGraceMs });
          const due = slotsBetween(trigger, lastSlot, now).slots;
          const fired = r.fire.map((f) => f.slot);
          const skipped = r.skip.map((s) => s.slot);
          // in order, none twice
          expect([...new Set(fired)]).toEqual(fired);
          expect([...fired].sort((a, b) => a - b)).toEqual(fired);
          // fired ∪ skipped = due, disjoint
          expect([...fired, ...skipped].sort((a, b) => a - b)).toEqual(due);
          // every slot within the grace fires on time; at most maxCatchUp older ones catch up;
          // fired = the newest due slots
          const onTime = due.filter((slot) => now - slot <= misfireGraceMs);
          expect(r.fire.filter((f) => f.source === 'schedule').map((f) => f.slot)).toEqual(onTime);
          expect(r.fire.filter((f) => f.source === 'catch-up').length).toBeLessThanOrEqual(maxCatchUp);
          expect(fired).toEqual(due.slice(due.length - fired.length));
          expect(fired.length).toBe(Math.min(due.length, onTime.length + maxCatchUp));
          expect(r.cursor).toBe(due.at(-1) ?? lastSlot);
        }),
      );
    });

    it('every policy partitions the due slots into fired and skipped', () => {
      fc.assert(
        fc.property(
          arb,
          fc.constantFrom('skip', 'last', 'all' as const),
          fc.option(fc.integer({ min: 0, max: 60_000 })),
          (a, policy, deadline) => {
            const trigger: Trigger = { kind: 'interval', everyMs: a.everyMs };
            const now = NOW + a.jitter;
            const lastSlot = now - a.back;
            const r = catchUp({
              trigger,
              now,
              lastSlot,
              policy,
              maxCatchUp: a.maxCatchUp,
              misfireGraceMs: a.misfireGraceMs,
              ...(deadline !== null && { startingDeadlineMs: deadline }),
            });
            const due = slotsBetween(trigger, lastSlot, now).slots;
            expect([...r.fire.map((f) => f.slot), ...r.skip.map((s) => s.slot)].sort((x, y) => x - y)).toEqual(due);
            if (deadline !== null) expect(r.fire.every((f) => now - f.slot <= deadline)).toBe(true);
            const onTime = due.filter(
              (slot) => now - slot <= a.misfireGraceMs && (deadline === null || now - slot <= deadline),
            );
            const catchUps = r.fire.filter((f) => f.source === 'catch-up').length;
            expect(r.fire.filter((f) => f.source === 'schedule')).toHaveLength(onTime.length);
            if (policy === 'skip') expect(catchUps).toBe(0);
            if (policy === 'last')
              expect(catchUps).toBe(
                onTime.length === 0
                  ? Math.min(1, due.length - r.skip.filter((s) => s.reason === 'deadline-exceeded').length)
                  : 0,
              );
          },
        ),
      );
    });
  });
});
