import { parseBundle } from '../model/bundle.schema';
import type { Routine, RoutineInput } from '../model/routine.schema';
import type { PlanState, RoutineState } from './plan.types';
import { whatIf, type WhatIfChange } from './what-if';

const AT = Date.parse('2026-06-15T14:00:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;

function routine(over: Partial<RoutineInput>): Routine {
  const r = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name: 'r', jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: HOUR }, ...over }],
  });
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.bundle.routines[0]!;
}
const queue = parseBundle({ queues: [{ name: 'default' }] });
if (!queue.ok) throw new Error('queue');
const state = (routines: RoutineState[]): PlanState => ({
  queues: [{ queue: queue.bundle.queues[0]!, running: 0, waiting: [] }],
  routines,
});
const one = (rs: RoutineState, at = AT, change: WhatIfChange = 'updated', slots?: number) =>
  whatIf(at, { state: state([rs]), changes: new Map([[rs.routine.name, change]]), ...(slots && { slots }) })
    .routines[0]!;
const ago = (ms: number) => AT - ms;

describe('whatIf', () => {
  it('under catch-up skip, skips every missed slot and fires only the on-time one', () => {
    const r = one({ routine: routine({ catchUpPolicy: 'skip' }), lastSlot: ago(5 * HOUR) });
    expect(r.fires.map((f) => [f.slot, f.source, f.starts])).toEqual([[AT, 'schedule', true]]);
    expect(r.skips.map((s) => [AT - s.slot, s.reason])).toEqual([
      [4 * HOUR, 'catch-up-skip'],
      [3 * HOUR, 'catch-up-skip'],
      [2 * HOUR, 'catch-up-skip'],
      [HOUR, 'catch-up-skip'],
    ]);
    expect(r.next.map((n) => n.at)).toEqual([1, 2, 3, 4, 5].map((k) => AT + k * HOUR));
  });

  it('under last, fires the newest missed slot as catch-up and supersedes the rest', () => {
    const r = one({ routine: routine({ catchUpPolicy: 'last' }), lastSlot: ago(3 * HOUR) }, AT + 10 * MIN);
    expect(r.fires.map((f) => [f.slot, f.source])).toEqual([[AT, 'catch-up']]);
    expect(r.skips.map((s) => [s.slot, s.reason])).toEqual([
      [ago(2 * HOUR), 'superseded'],
      [ago(HOUR), 'superseded'],
    ]);
  });

  it('under all, fires the newest maxCatchUp missed slots, older ones capped, and lists at most `slots`', () => {
    const r = one(
      { routine: routine({ catchUpPolicy: 'all', maxCatchUp: 3 }), lastSlot: ago(6 * HOUR) },
      AT + 10 * MIN,
      'updated',
      2,
    );
    expect(r.fires.map((f) => f.slot)).toEqual([ago(2 * HOUR), ago(HOUR)]);
    expect(r.more).toEqual({ fires: 1, skips: 1 });
    expect(r.skips.map((s) => s.reason)).toEqual(['catch-up-capped', 'catch-up-capped']);
  });

  it('skips slots past the starting deadline whatever the policy', () => {
    const r = one(
      { routine: routine({ catchUpPolicy: 'all', startingDeadlineMs: 90 * MIN }), lastSlot: ago(4 * HOUR) },
      AT + 10 * MIN,
    );
    expect(r.skips.map((s) => [s.slot, s.reason])).toEqual([
      [ago(3 * HOUR), 'deadline-exceeded'],
      [ago(2 * HOUR), 'deadline-exceeded'],
    ]);
    expect(r.fires.map((f) => [f.slot, f.source])).toEqual([
      [ago(HOUR), 'catch-up'],
      [AT, 'catch-up'],
    ]);
  });

  it('shows the spring-forward slot of a zone once, at the first instant after the gap', () => {
    const cron = routine({ trigger: { kind: 'cron', cron: '30 2 * * *', tz: 'Europe/Berlin' } });
    const before = Date.parse('2026-03-28T12:00:00Z');
    const r = one({ routine: cron, lastSlot: before }, before, 'unchanged');
    expect(r.next.slice(0, 2)).toEqual([
      { at: Date.parse('2026-03-29T01:00:00Z'), local: '2026-03-29T03:00:00.000+02:00', dst: 'gap' },
      { at: Date.parse('2026-03-30T00:30:00Z'), local: '2026-03-30T02:30:00.000+02:00' },
    ]);
  });

  it('fires nothing of a paused or archived routine and says why; a disabled launcher likewise', () => {
    const paused = one({
      routine: routine({ name: 'p', status: 'paused' }),
      lastSlot: ago(3 * HOUR),
      pause: { at: ago(3 * HOUR), by: 'alice', note: 'db migration' },
    });
    expect(paused).toMatchObject({ status: 'paused', fires: [], skips: [], next: [] });
    expect(paused.waiting).toEqual([{ reason: 'paused', detail: 'paused by alice "db migration"' }]);
    const archived = one({ routine: routine({ name: 'a', status: 'archived' }), lastSlot: ago(HOUR) });
    expect(archived).toMatchObject({ status: 'archived', fires: [], next: [], waiting: [{ reason: 'paused' }] });
    const disabled = one({
      routine: routine({ name: 'd' }),
      lastSlot: ago(HOUR),
      launcher: { consecutiveFailures: 5, disabledReason: 'launch failed 5 times' },
    });
    expect(disabled).toMatchObject({ fires: [], next: [], waiting: [{ reason: 'disabled' }] });
  });

  it('reports a new routine with nothing missed, a removed one with nothing, and never mutates its input', () => {
    const created = { routine: routine({ name: 'new' }), lastSlot: AT };
    const st = state([created]);
    const frozen = JSON.stringify(st);
    const res = whatIf(AT, {
      state: st,
      changes: new Map<string, WhatIfChange>([
        ['old', 'removed'],
        ['new', 'created'],
      ]),
    });
    expect(res.routines.map((r) => [r.routine, r.change, r.fires.length, r.next.length])).toEqual([
      ['new', 'created', 0, 5],
      ['old', 'removed', 0, 0],
    ]);
    expect(JSON.stringify(st)).toBe(frozen);
  });

  it('lists the fires of a routine with a condition as subject to it, evaluated at fire time: nothing is called', () => {
    const http = one({
      routine: routine({ condition: { kind: 'http', url: 'http://127.0.0.1:9/gate' } }),
      lastSlot: ago(HOUR),
    });
    expect(http.condition).toBe('http GET http://127.0.0.1:9/gate');
    expect(http.fires.map((f) => f.slot)).toEqual([AT]);
    const depth = one({
      routine: routine({ condition: { kind: 'queue-depth', queue: 'default', below: 5 } }),
      lastSlot: ago(HOUR),
    });
    expect(depth.condition).toBe('queue-depth default < 5');
    expect(one({ routine: routine({ condition: 'has-new-orders' }), lastSlot: ago(HOUR) }).condition).toBe(
      'has-new-orders',
    );
    expect(one({ routine: routine({}), lastSlot: ago(HOUR) })).not.toHaveProperty('condition');
  });
});
