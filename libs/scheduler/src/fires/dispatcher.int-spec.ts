import pino from 'pino';
import { parseBundle, runIdForSlot, type Routine } from '@drover/core';
import { DroverMetrics, FIRE_OUTCOMES } from '@drover/metrics';
import { Clock } from '@drover/platform';
import { DroverKeys, RedisConnections } from '@drover/redis';
import { BullQueues, QueueRegistry, RunStore, RoutineStore } from '@drover/store';
import { testRedisUrl, uniquePrefix } from '@drover/testing';
import { ConditionRegistry } from '../conditions/condition-registry.service';
import { DEFAULT_SCHEDULER_OPTIONS } from '../scheduler-options';
import { Dispatcher } from './dispatcher.service';

class ManualClock extends Clock {
  constructor(public t: number) {
    super();
  }
  now(): number {
    return this.t;
  }
}

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);

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

describe('Dispatcher condition checks and launcher bookkeeping (real Redis, real run store)', () => {
  let conns: RedisConnections;
  let keys: DroverKeys;
  let bull: BullQueues;
  let runs: RunStore;
  let routines: RoutineStore;
  let conditions: ConditionRegistry;
  let metrics: DroverMetrics;
  let clock: ManualClock;
  let dispatcher: Dispatcher;

  beforeEach(async () => {
    conns = new RedisConnections({ kind: 'url', url: testRedisUrl(), tls: false }, 'dispatch-test');
    keys = new DroverKeys(uniquePrefix('disp'), false);
    bull = new BullQueues(conns, keys);
    const registry = new QueueRegistry(conns.command, keys, bull);
    await registry.put([{ name: 'default' }]);
    clock = new ManualClock(T0);
    runs = new RunStore(conns, keys, registry, { bull, now: () => clock.now() });
    routines = new RoutineStore(conns.command, keys);
    conditions = new ConditionRegistry(undefined as never, undefined as never, undefined as never);
    metrics = new DroverMetrics({ defaultMetrics: false });
    dispatcher = new Dispatcher(
      conns,
      keys,
      clock,
      conditions,
      metrics,
      runs,
      bull,
      DEFAULT_SCHEDULER_OPTIONS,
      pino({ level: 'silent' }),
    );
  });

  afterEach(async () => {
    await runs.close();
    await bull.closeAll();
    await conns.closeAll();
  });

  /** Fires the routine's next slot `minutes` after T0, as a fire job would. */
  async function fireAt(minutes: number) {
    clock.t = T0 + minutes * 60_000;
    return dispatcher.dispatchDue('gated', clock.t);
  }

  it('exports every fire outcome at 0 before the first fire', async () => {
    const text = await metrics.registry.getSingleMetricAsString('drover_schedule_fires_total');
    for (const outcome of FIRE_OUTCOMES) expect(text).toContain(`drover_schedule_fires_total{outcome="${outcome}"} 0`);
  });

  it('disables the routine, with a reason, after maxLaunchFailures consecutive condition errors', async () => {
    let calls = 0;
    conditions.register('flaky', () => {
      calls++;
      throw new Error('orders service unreachable');
    });
    await routines.upsert(routine({ condition: 'flaky', maxLaunchFailures: 5 }), 'api', T0);
    // One slot a minute: well past each backoff (1 s, 2 s, 4 s, 8 s).
    for (let m = 1; m <= 5; m++) {
      const res = await fireAt(m);
      expect(res!.failed).toHaveLength(1);
      expect(res!.enqueued).toEqual([]);
    }
    const state = await routines.getState('gated');
    expect(state.consecutiveFailures).toBe(5);
    expect(state.disabledReason).toMatch(/launch failed 5 times in a row.*orders service unreachable/);
    // A disabled routine is not checked again; its fires are recorded as skipped.
    const after = await fireAt(6);
    expect(after!.skipped).toEqual([{ id: runIdForSlot('gated', T0 + 6 * 60_000), reason: 'disabled' }]);
    expect(calls).toBe(5);
    expect(await metrics.registry.getSingleMetricAsString('drover_schedule_fires_total')).toMatch(
      /outcome="failed"} 5/,
    );
  });

  it('backs off after a failure: a fire inside the backoff is skipped, not checked', async () => {
    let calls = 0;
    conditions.register('flaky', () => {
      calls++;
      throw new Error('boom');
    });
    await routines.upsert(
      routine({ condition: 'flaky', trigger: { kind: 'interval', everyMs: 1000 }, maxLaunchFailures: 5 }),
      'api',
      T0,
    );
    clock.t = T0 + 1000;
    await dispatcher.dispatchDue('gated', clock.t);
    expect((await routines.getState('gated')).nextAttemptAt).toBe(T0 + 1000 + 1000);
    clock.t = T0 + 1500; // no new slot yet
    clock.t = T0 + 2000; // the backoff ends exactly now: checked again
    await dispatcher.dispatchDue('gated', clock.t);
    expect(calls).toBe(2);
    clock.t = T0 + 3000; // second failure backs off 2 s: this slot is inside it
    const res = await dispatcher.dispatchDue('gated', clock.t);
    expect(res!.skipped).toEqual([{ id: runIdForSlot('gated', T0 + 3000), reason: 'backing-off' }]);
    expect(calls).toBe(2);
  });

  it('treats a false condition as a healthy skip, however often', async () => {
    conditions.register('has-new-orders', () => false);
    await routines.upsert(routine({ condition: 'has-new-orders', maxLaunchFailures: 5 }), 'api', T0);
    for (let m = 1; m <= 20; m++) {
      const res = await fireAt(m);
      expect(res!.skipped).toEqual([{ id: runIdForSlot('gated', T0 + m * 60_000), reason: 'condition-false' }]);
    }
    const state = await routines.getState('gated');
    expect(state.consecutiveFailures).toBe(0);
    expect(state.disabledReason).toBeUndefined();
    const skipped = await runs.get(runIdForSlot('gated', T0 + 20 * 60_000));
    expect(skipped).toMatchObject({ status: 'skipped', routine: 'gated', scheduledFor: T0 + 20 * 60_000 });
  });

  it('enqueues when the condition holds and resets earlier failures', async () => {
    let fail = true;
    conditions.register('sometimes', () => {
      if (fail) throw new Error('not yet');
      return true;
    });
    await routines.upsert(routine({ condition: 'sometimes' }), 'api', T0);
    await fireAt(1);
    expect((await routines.getState('gated')).consecutiveFailures).toBe(1);
    fail = false;
    const res = await fireAt(2);
    expect(res!.enqueued).toEqual([runIdForSlot('gated', T0 + 2 * 60_000)]);
    expect((await routines.getState('gated')).consecutiveFailures).toBe(0);
    expect(await runs.get(res!.enqueued[0]!)).toMatchObject({ status: 'queued', source: 'schedule' });
  });

  it('counts an unknown condition name as a launch failure with a clear message', async () => {
    await routines.upsert(routine({ condition: 'nobody-registered-this' }), 'api', T0);
    const res = await fireAt(1);
    expect(res!.failed[0]!.error).toMatch(/no condition check named "nobody-registered-this"/);
  });

  it('makes one run per slot however many dispatchers race for it', async () => {
    await routines.upsert(routine({}), 'api', T0);
    clock.t = T0 + 60_000;
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => dispatcher.dispatchDue('gated', clock.t)));
    expect(results.flatMap((r) => r!.enqueued)).toEqual([runIdForSlot('gated', T0 + 60_000)]);
    expect(results.reduce((n, r) => n + r!.duplicates, 0)).toBe(4);
  });

  it('completes a slot whose claimer died after claiming, when its fire is retried', async () => {
    await routines.upsert(routine({}), 'api', T0);
    clock.t = T0 + 60_000;
    // The dead claimer's decision, as it wrote it just before dying.
    await conns.command.set(
      keys.core('slot', 'gated', T0 + 60_000),
      JSON.stringify({ kind: 'fire', source: 'schedule', cancel: [], at: clock.t }),
      'PX',
      600_000,
    );
    // Another dispatcher racing it a moment later assumes the claimer is alive and busy.
    const racing = await dispatcher.dispatchDue('gated', clock.t);
    expect(racing!.enqueued).toEqual([]);
    expect(racing!.duplicates).toBe(1);
    // The stalled fire comes back as a retry: the run is missing, so the decision is completed.
    clock.t += 3000;
    const retried = await dispatcher.dispatchDue('gated', T0 + 60_000, '', { retry: true });
    expect(retried!.enqueued).toEqual([runIdForSlot('gated', T0 + 60_000)]);
    // And only once.
    const again = await dispatcher.dispatchDue('gated', T0 + 60_000, '', { retry: true });
    expect(again!.enqueued).toEqual([]);
  });

  it('completes an abandoned claim found after it settled, even without a retry', async () => {
    await routines.upsert(routine({ catchUpPolicy: 'all' }), 'api', T0);
    await conns.command.set(
      keys.core('slot', 'gated', T0 + 60_000),
      JSON.stringify({ kind: 'fire', source: 'schedule', cancel: [], at: T0 + 60_000 }),
      'PX',
      600_000,
    );
    clock.t = T0 + 60_000 + 15_000;
    const res = await dispatcher.dispatchDue('gated', clock.t);
    expect(res!.enqueued).toEqual([runIdForSlot('gated', T0 + 60_000)]);
  });

  describe('arming the next run ahead of its slot', () => {
    it('creates the next slot run as a delayed job and the fire for that slot finds it done', async () => {
      await routines.upsert(routine({}), 'api', T0);
      const first = await fireAt(1);
      expect(first!.enqueued).toEqual([runIdForSlot('gated', T0 + 60_000)]);
      const armedId = runIdForSlot('gated', T0 + 120_000);
      expect(await runs.get(armedId)).toMatchObject({
        status: 'scheduled',
        scheduledFor: T0 + 120_000,
        source: 'schedule',
      });
      expect(await runs.get(runIdForSlot('gated', T0 + 180_000))).toMatchObject({ status: 'scheduled' });
      expect(await routines.getState('gated')).toMatchObject({
        armedSlots: [T0 + 120_000, T0 + 180_000],
        armedQueue: 'default',
      });
      const second = await fireAt(2);
      expect(second!.enqueued).toEqual([]);
      expect(second!.duplicates).toBe(1);
      expect((await routines.getState('gated')).armedSlots).toEqual([T0 + 180_000, T0 + 240_000]);
    });

    it('disarms on an edit so the slot runs with the new definition', async () => {
      await routines.upsert(routine({ payload: { v: 1 } }), 'api', T0);
      await fireAt(1);
      const armedId = runIdForSlot('gated', T0 + 120_000);
      await routines.upsert(routine({ payload: { v: 2 } }), 'api', T0 + 61_000);
      expect(await dispatcher.disarm('gated')).toBe(2);
      expect(await runs.get(armedId)).toBeNull();
      const res = await fireAt(2);
      expect(res!.enqueued).toEqual([armedId]);
      const job = await bull.get('default').getJob(armedId);
      expect(job!.data).toMatchObject({ payload: { v: 2 } });
    });

    it('records a paused slot as skipped once disarmed', async () => {
      await routines.upsert(routine({}), 'api', T0);
      await fireAt(1);
      await routines.setStatus('gated', 'paused', T0 + 61_000);
      await dispatcher.disarm('gated');
      const res = await fireAt(2);
      expect(res!.skipped).toEqual([{ id: runIdForSlot('gated', T0 + 120_000), reason: 'paused' }]);
    });

    it('never arms routines whose outcome is decided at fire time', async () => {
      conditions.register('yes', () => true);
      for (const extra of [{ concurrencyPolicy: 'forbid' }, { concurrencyPolicy: 'replace' }, { condition: 'yes' }]) {
        await routines.upsert(routine(extra), 'api', T0);
        await fireAt(1);
        expect((await routines.getState('gated')).armedSlots).toBeUndefined();
        expect(await runs.get(runIdForSlot('gated', T0 + 120_000))).toBeNull();
        await routines.remove('gated');
        await conns.command.del(keys.core('slot', 'gated', T0 + 60_000));
      }
    });
  });
});
