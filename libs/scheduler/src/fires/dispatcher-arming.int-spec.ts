import { parseBundle, runIdForSlot, type Routine } from '@drover/core';
import type { RedisConnections } from '@drover/redis';
import {
  armFireJobId,
  fireOfJob,
  FIRES_QUEUE,
  refireJobId,
  type BullQueues,
  type RoutineStore,
  type RunStore,
  type SlotClaims,
} from '@drover/store';
import type { ManualClock } from '@drover/testing';
import type { ConditionRegistry } from '../conditions/condition-registry.service';
import { dispatcherHarness } from '../testing/dispatcher-harness';
import { DEFAULT_SCHEDULER_OPTIONS } from '../scheduler-options';
import type { Disarmer } from './disarmer';
import type { Dispatcher } from './dispatcher.service';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const MIN = 60_000;

function routine(extra: Record<string, unknown>): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [
      { name: 'gated', jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: 60_000 }, ...extra },
    ],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

/** Arming: the dispatcher creates a routine's next slot runs ahead of their slots (real Redis, real BullMQ). */
describe('Dispatcher arming the next runs ahead of their slots', () => {
  let h: Awaited<ReturnType<typeof dispatcherHarness>>;
  let conns: RedisConnections;
  let bull: BullQueues;
  let runs: RunStore;
  let routines: RoutineStore;
  let claims: SlotClaims;
  let conditions: ConditionRegistry;
  let clock: ManualClock;
  let disarmer: Disarmer;
  let dispatcher: Dispatcher;

  beforeEach(async () => {
    h = await dispatcherHarness([{ name: 'default' }], T0);
    ({ conns, bull, runs, routines, claims, conditions, clock, disarmer, dispatcher } = h);
  });

  afterEach(async () => {
    await h.close();
  });

  /** Dispatches the routine's slot `minutes` after T0, as its fire job would. */
  async function fireAt(minutes: number) {
    clock.t = T0 + minutes * MIN;
    return dispatcher.dispatch('gated', { slot: clock.t });
  }

  it('creates the next two slot runs as delayed jobs, tagged with the version, and their fires find them done', async () => {
    await routines.upsert(routine({}), 'api', T0);
    const first = await fireAt(1);
    const [s1, s2, s3] = [T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN];
    expect(first!.enqueued).toEqual([runIdForSlot('gated', s1), runIdForSlot('gated', s2), runIdForSlot('gated', s3)]);
    expect(await runs.get(runIdForSlot('gated', s2))).toMatchObject({ status: 'scheduled', scheduledFor: s2 });
    const armedJob = await bull.get('default').getJob(runIdForSlot('gated', s2));
    expect(armedJob!.data).toMatchObject({ av: 1 });
    // Released to the workers the arming lead before its slot; the worker that takes it holds it.
    expect(armedJob!.delay).toBe(s2 - DEFAULT_SCHEDULER_OPTIONS.armLeadMs - (T0 + MIN));
    expect((await routines.getState('gated')).armed).toEqual([
      { slot: s2, version: 1, queue: 'default' },
      { slot: s3, version: 1, queue: 'default' },
    ]);
    const second = await fireAt(2);
    expect(second!.enqueued).toEqual([runIdForSlot('gated', T0 + 4 * MIN)]);
    expect(second!.duplicates).toBe(0);
  });

  it("arms the first two slots from the fire added as the schedule is written, and the first slot's own fire adds none", async () => {
    await routines.upsert(routine({}), 'api', T0);
    clock.t = T0 + 10_000;
    const [s1, s2, s3] = [T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN];
    const written = await dispatcher.dispatch('gated', fireOfJob(armFireJobId('gated', clock.t))!);
    expect(written!.enqueued).toEqual([runIdForSlot('gated', s1), runIdForSlot('gated', s2)]);
    expect(await runs.get(runIdForSlot('gated', s1))).toMatchObject({ status: 'scheduled', scheduledFor: s1 });
    expect(await bull.get('default').getJobCounts('wait', 'delayed')).toEqual({ wait: 0, delayed: 2 });
    const first = await fireAt(1);
    expect(first!.enqueued).toEqual([runIdForSlot('gated', s3)]);
    expect(first!.duplicates).toBe(0);
    expect(await bull.get('default').getJobCounts('wait', 'delayed')).toEqual({ wait: 0, delayed: 3 });
  });

  it('finishes an arm whose maker died between claiming the slot and creating its run, when the slot comes', async () => {
    await routines.upsert(routine({}), 'api', T0);
    await fireAt(1);
    const slot = T0 + 4 * MIN;
    // The armer of slot 4 claims it (moving the cursor) and dies before creating the run.
    const decision = { kind: 'fire' as const, source: 'schedule' as const, cancel: [], at: T0 + 3 * MIN, v: 1 };
    clock.t = T0 + 3 * MIN;
    const claimed = await claims.claim({
      routine: 'gated',
      slot,
      decision,
      now: clock.t,
      armed: { version: 1, queue: 'default' },
    });
    expect(claimed.kind).toBe('claimed');
    expect(await runs.get(runIdForSlot('gated', slot))).toBeNull();
    const res = await fireAt(4);
    expect(res!.enqueued).toContain(runIdForSlot('gated', slot));
    expect(await claims.get('gated', slot)).toMatchObject({ state: 'done', arm: 'armed' });
  });

  it('withdraws armed runs after an edit; their refire runs the slot with the new definition under a new id', async () => {
    await routines.upsert(routine({ payload: { v: 1 } }), 'api', T0);
    await fireAt(1);
    const slot = T0 + 2 * MIN;
    await routines.upsert(routine({ payload: { v: 2 } }), 'api', T0 + MIN + 1000);
    const { state } = await routines.getWithState('gated');
    expect(await disarmer.disarm('gated', state.armed, { refire: true, why: 'test' })).toBe(2);
    expect(await runs.get(runIdForSlot('gated', slot))).toBeNull();
    const fires = bull.get(FIRES_QUEUE);
    expect(await fires.getJob(refireJobId('gated', slot, 0))).toBeDefined();
    clock.t = slot;
    const res = await dispatcher.dispatch('gated', { slot, refireOf: 0 });
    const newId = runIdForSlot('gated', slot, 1);
    expect(res!.enqueued[0]).toBe(newId);
    expect((await bull.get('default').getJob(newId))!.data).toMatchObject({ payload: { v: 2 } });
    // The normal fire of that slot, arriving after, finds it decided.
    const late = await dispatcher.dispatch('gated', { slot });
    expect(late!.enqueued).not.toContain(runIdForSlot('gated', slot));
  });

  it('records a paused slot as skipped once its armed run was withdrawn', async () => {
    await routines.upsert(routine({}), 'api', T0);
    await fireAt(1);
    await routines.setStatus('gated', 'paused', T0 + MIN + 1000);
    const { state } = await routines.getWithState('gated');
    await disarmer.disarm('gated', state.armed, { refire: true, why: 'test' });
    clock.t = T0 + 2 * MIN;
    const res = await dispatcher.dispatch('gated', { slot: clock.t, refireOf: 0 });
    expect(res!.skipped).toEqual([{ id: runIdForSlot('gated', T0 + 2 * MIN, 1), reason: 'paused' }]);
  });

  it('never arms routines whose outcome is decided at fire time', async () => {
    conditions.register('yes', () => true);
    for (const extra of [{ concurrencyPolicy: 'forbid' }, { concurrencyPolicy: 'replace' }, { condition: 'yes' }]) {
      await routines.upsert(routine(extra), 'api', T0);
      await fireAt(1);
      expect((await routines.getState('gated')).armed).toEqual([]);
      expect(await runs.get(runIdForSlot('gated', T0 + 2 * MIN))).toBeNull();
      await routines.remove('gated');
      await conns.command.del(claims.key('gated', T0 + MIN));
    }
  });
});
