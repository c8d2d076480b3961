import { parseBundle, plannedStart, runIdForSlot, type Routine } from '@drover/core';
import type { BullQueues, RoutineStore, RunStore } from '@drover/store';
import type { ManualClock } from '@drover/testing';
import { dispatcherHarness } from '../testing/dispatcher-harness';
import { DEFAULT_SCHEDULER_OPTIONS } from '../scheduler-options';
import type { Dispatcher } from './dispatcher.service';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const MIN = 60_000;
const JITTER = 50_000;
const LEAD = DEFAULT_SCHEDULER_OPTIONS.armLeadMs;

function routine(extra: Record<string, unknown>): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [
      {
        name: 'spread',
        jobType: 'noop',
        queue: 'default',
        trigger: { kind: 'interval', everyMs: MIN },
        jitterMs: JITTER,
        ...extra,
      },
    ],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

/** The dispatcher creates a jittered slot's run under the slot's own id, delayed until its planned start. */
describe('Dispatcher: jitterMs (real Redis, real BullMQ)', () => {
  let h: Awaited<ReturnType<typeof dispatcherHarness>>;
  let bull: BullQueues;
  let runs: RunStore;
  let routines: RoutineStore;
  let clock: ManualClock;
  let dispatcher: Dispatcher;

  beforeEach(async () => {
    h = await dispatcherHarness([{ name: 'default' }], T0);
    ({ bull, runs, routines, clock, dispatcher } = h);
  });
  afterEach(() => h.close());

  const fireAt = (at: number, refireOf?: number) => {
    clock.t = at;
    return dispatcher.dispatch('spread', { slot: at, ...(refireOf !== undefined && { refireOf }) });
  };
  const start = (slot: number) => plannedStart({ name: 'spread', jitterMs: JITTER }, slot);

  it('not armed: the slot decided at its fire makes a run delayed until slot + offset, slot and id unchanged', async () => {
    await routines.upsert(routine({ concurrencyPolicy: 'forbid' }), 'api', T0);
    const slot = T0 + MIN;
    expect(start(slot)).toBeGreaterThan(slot);
    const res = await fireAt(slot);
    const id = runIdForSlot('spread', slot);
    expect(res!.enqueued[0]).toBe(id);
    const job = await bull.get('default').getJob(id);
    expect(job!.delay).toBe(start(slot) - slot);
    expect(job!.data).toMatchObject({ scheduledFor: slot, startAt: start(slot) });
    expect(await runs.get(id)).toMatchObject({ status: 'scheduled', scheduledFor: slot });
  });

  it('armed: each armed run is released the lead before its planned start, and its claim outlives that start', async () => {
    await routines.upsert(routine({}), 'api', T0);
    const slot = T0 + MIN;
    await fireAt(slot);
    for (const next of [T0 + 2 * MIN, T0 + 3 * MIN]) {
      const job = await bull.get('default').getJob(runIdForSlot('spread', next));
      expect(job!.data).toMatchObject({ scheduledFor: next, startAt: start(next), av: 1 });
      expect(job!.delay).toBe(start(next) - LEAD - slot);
      // The worker asks the claim at the planned start (plus a backlog): it must still be there.
      const ttl = await h.conns.command.pttl(h.claims.key('spread', next));
      expect(ttl).toBeGreaterThan(start(next) - slot);
    }
  });

  it('a withdrawn armed run refired after its slot but within the grace of its planned start runs on time', async () => {
    await routines.upsert(routine({ misfireGraceMs: 1_000 }), 'api', T0);
    await fireAt(T0 + MIN);
    const s2 = T0 + 2 * MIN;
    expect(start(s2) - s2).toBeGreaterThan(1_000);
    const state = await routines.getState('spread');
    expect(await h.disarmer.disarm('spread', state.armed.slice(0, 1), { refire: true, why: 'test' })).toBe(1);
    // Its refire comes at the planned start (a worker refused the run then): on time from there.
    clock.t = start(s2) + 500;
    const res = await dispatcher.dispatch('spread', { slot: s2, refireOf: 0 });
    expect(res!.skipped).toEqual([]);
    const id = runIdForSlot('spread', s2, 1);
    expect(res!.enqueued[0]).toBe(id);
    expect(await runs.get(id)).toMatchObject({ source: 'schedule', scheduledFor: s2 });
  });
});
