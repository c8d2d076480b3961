import { parseBundle, runIdForSlot, type Routine } from '@drover/core';
import { skipSlot, type BullQueues, type RoutineStore, type RunStore, type SlotSkips } from '@drover/store';
import type { ManualClock } from '@drover/testing';
import { dispatcherHarness } from '../testing/dispatcher-harness';
import type { Disarmer } from './disarmer';
import type { Dispatcher } from './dispatcher.service';

const T0 = Date.UTC(2026, 11, 24, 12, 0, 0);
const MIN = 60_000;

function routine(extra: Record<string, unknown> = {}): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [
      { name: 'every', jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: MIN }, ...extra },
    ],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

describe('exclusions and operator skips at fire time (real Redis, real BullMQ)', () => {
  let h: Awaited<ReturnType<typeof dispatcherHarness>>;
  let bull: BullQueues;
  let runs: RunStore;
  let routines: RoutineStore;
  let skips: SlotSkips;
  let clock: ManualClock;
  let disarmer: Disarmer;
  let dispatcher: Dispatcher;

  beforeEach(async () => {
    h = await dispatcherHarness([{ name: 'default' }], T0);
    ({ bull, runs, routines, skips, clock, disarmer, dispatcher } = h);
  });

  afterEach(async () => {
    await h.close();
  });

  const fireAt = (minutes: number, refireOf?: number) => {
    clock.t = T0 + minutes * MIN;
    return dispatcher.dispatch('every', { slot: clock.t, ...(refireOf !== undefined && { refireOf }) });
  };
  const skipDeps = () => ({ routines, claims: h.claims, skips, changes: h.changes });

  it('withdraws the armed run of a slot an operator skips: it never reaches the queue, the slot is recorded skipped', async () => {
    await routines.upsert(routine(), 'api', T0);
    await fireAt(1); // arms minutes 2 and 3
    const slot = T0 + 2 * MIN;
    const armedId = runIdForSlot('every', slot);
    expect((await bull.get('default').getJob(armedId))?.id).toBe(armedId);

    const res = await skipSlot(skipDeps(), 'every', slot, { now: T0 + MIN + 1000, by: 'alice' });
    expect(res.created).toBe(true);
    const { state } = await routines.getWithState('every');
    // What the leader does on the change the skip announced.
    expect(await disarmer.disarmSkipped('every', state.armed)).toBe(1);
    expect(await bull.get('default').getJob(armedId)).toBeUndefined();
    expect((await runs.get(armedId))?.status).not.toBe('queued');

    const refired = await fireAt(2, 0);
    expect(refired!.skipped).toEqual([{ id: runIdForSlot('every', slot, 1), reason: 'skipped-by-operator: by alice' }]);
    expect(refired!.enqueued).not.toContain(runIdForSlot('every', slot, 1));
    // Decided: the skip is forgotten, and the slot after runs as armed.
    expect((await skips.pending('every')).size).toBe(0);
    expect(await bull.get('default').getJob(runIdForSlot('every', T0 + 3 * MIN))).toBeDefined();
  });

  it('never arms an excluded or skipped slot, and records each with its reason when its fire comes', async () => {
    // 12:03 UTC on 24 Dec is excluded by a cron pattern over local minutes.
    await routines.upsert(routine({ exclude: [{ name: 'quiet', cron: '3 12 24 12 *' }] }), 'api', T0);
    await skipSlot(skipDeps(), 'every', T0 + 4 * MIN, { now: T0, by: 'bob' });
    // Minute 3 is excluded: nothing is armed past it (arming moves the cursor), so its fire comes.
    await fireAt(2);
    const armedAt = async () => (await routines.getState('every')).armed.map((e) => (e.slot - T0) / MIN);
    expect(await armedAt()).toEqual([]);
    expect((await fireAt(3))!.skipped).toEqual([
      { id: runIdForSlot('every', T0 + 3 * MIN), reason: 'excluded: quiet' },
    ]);
    expect((await fireAt(4))!.skipped).toEqual([
      { id: runIdForSlot('every', T0 + 4 * MIN), reason: 'skipped-by-operator: by bob' },
    ]);
    expect(await armedAt()).toEqual([5, 6]);
  });

  it('records excluded slots missed during downtime as excluded, not as caught up', async () => {
    await routines.upsert(routine({ catchUpPolicy: 'all', exclude: [{ cron: '2-3 12 * * *' }] }), 'api', T0);
    const res = await fireAt(5);
    expect(res!.skipped.map((s) => [(Number(s.id.split('-').at(-1)) - T0) / MIN, s.reason])).toEqual([
      [2, 'excluded: exclude[0]'],
      [3, 'excluded: exclude[0]'],
    ]);
    expect(res!.enqueued.map((id) => (Number(id.split('-').at(-1)) - T0) / MIN)).toEqual([1, 4, 5, 6, 7]);
  });

  it('fires no slot before startAt or after endAt', async () => {
    const startAt = new Date(T0 + 2 * MIN).toISOString();
    const endAt = new Date(T0 + 3 * MIN).toISOString();
    await routines.upsert(routine({ catchUpPolicy: 'all', startAt, endAt }), 'api', T0);
    const res = await fireAt(6);
    expect(res!.enqueued.map((id) => (Number(id.split('-').at(-1)) - T0) / MIN)).toEqual([2, 3]);
    expect((await routines.getState('every')).armed).toEqual([]);
  });
});
