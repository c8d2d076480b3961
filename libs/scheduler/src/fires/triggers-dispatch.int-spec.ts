import { parseBundle, runIdForSlot, type Routine } from '@drover/core';
import { dispatcherHarness } from '../testing/dispatcher-harness';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const MIN = 60_000;

function routine(triggers: Record<string, unknown>[], extra: Record<string, unknown> = {}): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name: 'office', jobType: 'noop', queue: 'default', triggers, ...extra }],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

describe('Dispatcher: a routine with several triggers (real Redis, BullMQ, run store)', () => {
  let h: Awaited<ReturnType<typeof dispatcherHarness>>;

  beforeEach(async () => {
    h = await dispatcherHarness([{ name: 'default' }], T0);
  });

  afterEach(async () => {
    await h.close();
  });

  it('claims an instant two triggers share once, and records on each run the trigger its slot came from', async () => {
    // Every 2 min ("even") and every minute (unnamed, index 1): minute 2 belongs to both.
    const triggers = [
      { kind: 'interval', everyMs: 2 * MIN, name: 'even' },
      { kind: 'interval', everyMs: MIN },
    ];
    // A condition-free `forbid` routine is not armed ahead: each fire decides its slots itself.
    await h.routines.upsert(routine(triggers, { concurrencyPolicy: 'forbid' }), 'api', T0);
    h.clock.t = T0 + MIN;
    const first = await h.dispatcher.dispatch('office', { slot: T0 + MIN });
    expect(first!.enqueued).toEqual([runIdForSlot('office', T0 + MIN)]);
    // Both schedulers fire minute 2: the first fire claims it, the second finds it taken.
    await h.runs.cancel(runIdForSlot('office', T0 + MIN), 'done with it');
    h.clock.t = T0 + 2 * MIN;
    const a = await h.dispatcher.dispatch('office', { slot: T0 + 2 * MIN });
    const b = await h.dispatcher.dispatch('office', { slot: T0 + 2 * MIN });
    expect(a!.enqueued).toEqual([runIdForSlot('office', T0 + 2 * MIN)]);
    expect(b!.enqueued).toEqual([]);
    expect((await h.runs.listByRoutine('office', {})).map((r) => r.id).sort()).toEqual(
      [runIdForSlot('office', T0 + MIN), runIdForSlot('office', T0 + 2 * MIN)].sort(),
    );
    expect((await h.runs.get(runIdForSlot('office', T0 + MIN)))!.trigger).toBe('1');
    expect((await h.runs.get(runIdForSlot('office', T0 + 2 * MIN)))!.trigger).toBe('even');
  });

  it('attributes a skipped slot too (overlap), and catches up the slots of both triggers', async () => {
    const triggers = [
      { kind: 'interval', everyMs: 3 * MIN, name: 'slow' },
      { kind: 'interval', everyMs: 2 * MIN, name: 'fast' },
    ];
    await h.routines.upsert(
      routine(triggers, { concurrencyPolicy: 'forbid', catchUpPolicy: 'all', misfireGraceMs: 0 }),
      'api',
      T0,
    );
    // Asleep for 6 minutes: slots at 2 (fast), 3 (slow), 4 (fast), 6 (both, so slow) are due.
    h.clock.t = T0 + 6 * MIN;
    const res = await h.dispatcher.dispatch('office', { slot: T0 + 6 * MIN });
    // forbid: the first runs, the others meet it still open.
    expect(res!.enqueued).toEqual([runIdForSlot('office', T0 + 2 * MIN)]);
    const slots = [2, 3, 4, 6].map((m) => runIdForSlot('office', T0 + m * MIN));
    const views = await Promise.all(slots.map((id) => h.runs.get(id)));
    expect(views.map((v) => [v!.status, v!.trigger])).toEqual([
      ['queued', 'fast'],
      ['skipped', 'slow'],
      ['skipped', 'fast'],
      ['skipped', 'slow'],
    ]);
  });
});
