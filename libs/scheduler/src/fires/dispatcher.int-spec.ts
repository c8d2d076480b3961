import { Worker } from 'bullmq';
import { parseBundle, runIdForSlot, type Routine } from '@drover/core';
import { FIRE_OUTCOMES, type DroverMetrics } from '@drover/metrics';
import type { DroverKeys, RedisConnections } from '@drover/redis';
import type { BullQueues, FireRequest, RoutineStore, RunStore, SlotClaims } from '@drover/store';
import { waitFor, type ManualClock } from '@drover/testing';
import type { ConditionRegistry } from '../conditions/condition-registry.service';
import { dispatcherHarness } from '../testing/dispatcher-harness';
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

describe('Dispatcher (real Redis, real BullMQ, real run store)', () => {
  let h: Awaited<ReturnType<typeof dispatcherHarness>>;
  let conns: RedisConnections;
  let keys: DroverKeys;
  let bull: BullQueues;
  let runs: RunStore;
  let routines: RoutineStore;
  let claims: SlotClaims;
  let conditions: ConditionRegistry;
  let metrics: DroverMetrics;
  let clock: ManualClock;
  let dispatcher: Dispatcher;

  beforeEach(async () => {
    h = await dispatcherHarness([{ name: 'default' }], T0);
    ({ conns, keys, bull, runs, routines, claims, conditions, metrics, clock, dispatcher } = h);
  });

  afterEach(async () => {
    await h.close();
  });

  /** Dispatches the routine's slot `minutes` after T0, as its fire job would. */
  async function fireAt(minutes: number, request: Partial<FireRequest> = {}, opts: { retry?: boolean } = {}) {
    clock.t = T0 + minutes * MIN;
    return dispatcher.dispatch('gated', { slot: clock.t, ...request }, opts);
  }

  /** Runs every waiting job of the queue through a real BullMQ worker that keeps no finished job (retention 0). */
  async function drainWithRetentionZero(): Promise<string[]> {
    const processed: string[] = [];
    const worker = new Worker(
      keys.bullQueueName('default'),
      async (job) => {
        processed.push(job.id!);
      },
      { connection: conns.open('blocking', 'drain'), prefix: keys.bullPrefix, removeOnComplete: { count: 0 } },
    );
    await waitFor(
      'the queue to drain',
      async () => (await bull.get('default').getWaitingCount()) === 0 && processed.length > 0,
      {
        timeoutMs: 10_000,
      },
    );
    await worker.close();
    return processed;
  }

  it('exports every fire outcome at 0 before the first fire', async () => {
    const text = await metrics.registry.getSingleMetricAsString('drover_schedule_fires_total');
    for (const outcome of FIRE_OUTCOMES) expect(text).toContain(`drover_schedule_fires_total{outcome="${outcome}"} 0`);
  });

  describe('condition checks and launcher bookkeeping', () => {
    it('disables the routine, with a reason, after maxLaunchFailures consecutive condition errors', async () => {
      const announced = jest.spyOn(h.changes, 'announce');
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
        if (m === 4) {
          expect(await routines.getState('gated')).toMatchObject({
            consecutiveFailures: 4,
            nextAttemptAt: T0 + 4 * MIN + 8000,
            lastLaunchError: expect.stringMatching(/orders service unreachable/),
          });
        }
      }
      const state = await routines.getState('gated');
      expect(state.consecutiveFailures).toBe(5);
      expect(state.disabledAt).toBe(T0 + 5 * MIN);
      expect(await h.index.counts()).toEqual(
        new Map([
          ['active', 0],
          ['disabled', 1],
        ]),
      );
      expect(state.disabledReason).toMatch(/launch failed 5 times in a row.*orders service unreachable/);
      // A disabled routine is not checked again; its fires are recorded as skipped.
      const after = await fireAt(6);
      expect(after!.skipped).toEqual([{ id: runIdForSlot('gated', T0 + 6 * MIN), reason: 'disabled' }]);
      expect(calls).toBe(5);
      // The leader hears of it once, when it was disabled (it drops the routine's Job Scheduler).
      expect(announced.mock.calls).toEqual([['gated']]);
      expect(await metrics.registry.getSingleMetricAsString('drover_schedule_fires_total')).toMatch(
        /outcome="failed"} 5/,
      );
      // Slot fates by a bounded reason: the launch failure's message is not a label value.
      const slots = await metrics.registry.getSingleMetricAsString('drover_slots_total');
      expect(slots).toContain('drover_slots_total{outcome="skipped",reason="condition-failed"} 5');
      expect(slots).toContain('drover_slots_total{outcome="skipped",reason="disabled"} 1');
    });

    it('gives a hung condition check its deadline: the signal aborts and the fire counts as a launch failure', async () => {
      let aborted: unknown;
      conditions.register('hangs', ({ signal }) => {
        signal.addEventListener('abort', () => (aborted = signal.reason));
        return new Promise<boolean>(() => undefined);
      });
      await routines.upsert(routine({ condition: 'hangs', conditionTimeoutMs: 200 }), 'api', T0);
      const started = Date.now();
      const res = await fireAt(1);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(res!.failed).toEqual([
        {
          id: runIdForSlot('gated', T0 + MIN),
          error: 'condition-failed: condition "hangs" did not answer within 200 ms',
        },
      ]);
      expect(aborted).toBeInstanceOf(Error);
      expect((await routines.getState('gated')).consecutiveFailures).toBe(1);
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
      await dispatcher.dispatch('gated', { slot: clock.t });
      expect((await routines.getState('gated')).nextAttemptAt).toBe(T0 + 1000 + 1000);
      clock.t = T0 + 2000; // the backoff ends exactly now: checked again
      await dispatcher.dispatch('gated', { slot: clock.t });
      expect(calls).toBe(2);
      clock.t = T0 + 3000; // second failure backs off 2 s: this slot is inside it
      const res = await dispatcher.dispatch('gated', { slot: clock.t });
      expect(res!.skipped).toEqual([{ id: runIdForSlot('gated', T0 + 3000), reason: 'backing-off' }]);
      expect(calls).toBe(2);
    });

    it('treats a false condition as a healthy skip, however often', async () => {
      conditions.register('has-new-orders', () => false);
      await routines.upsert(routine({ condition: 'has-new-orders', maxLaunchFailures: 5 }), 'api', T0);
      for (let m = 1; m <= 20; m++) {
        const res = await fireAt(m);
        expect(res!.skipped).toEqual([{ id: runIdForSlot('gated', T0 + m * MIN), reason: 'condition-false' }]);
      }
      const state = await routines.getState('gated');
      expect(state.consecutiveFailures).toBe(0);
      expect(state.disabledReason).toBeUndefined();
      const skipped = await runs.get(runIdForSlot('gated', T0 + 20 * MIN));
      expect(skipped).toMatchObject({ status: 'skipped', routine: 'gated', scheduledFor: T0 + 20 * MIN });
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
      expect(res!.enqueued).toEqual([runIdForSlot('gated', T0 + 2 * MIN)]);
      expect((await routines.getState('gated')).consecutiveFailures).toBe(0);
      expect(await runs.get(res!.enqueued[0]!)).toMatchObject({ status: 'queued', source: 'schedule' });
    });

    it('counts an unknown condition name as a launch failure with a clear message', async () => {
      await routines.upsert(routine({ condition: 'nobody-registered-this' }), 'api', T0);
      const res = await fireAt(1);
      expect(res!.failed[0]!.error).toMatch(/no condition check named "nobody-registered-this"/);
    });
  });

  describe('at most one run per slot', () => {
    it('makes one run per slot however many dispatchers race for it', async () => {
      await routines.upsert(routine({ concurrencyPolicy: 'forbid' }), 'api', T0);
      clock.t = T0 + MIN;
      const results = await Promise.all([1, 2, 3, 4, 5].map(() => dispatcher.dispatch('gated', { slot: clock.t })));
      expect(results.flatMap((r) => r!.enqueued)).toEqual([runIdForSlot('gated', T0 + MIN)]);
      expect(results.reduce((n, r) => n + r!.duplicates, 0)).toBe(4);
    });

    it('never runs a finished slot again once retention removed its run: a retried fire finds the claim done', async () => {
      await routines.upsert(routine({ concurrencyPolicy: 'forbid' }), 'api', T0);
      const first = await fireAt(1);
      expect(first!.enqueued).toEqual([runIdForSlot('gated', T0 + MIN)]);
      expect(await drainWithRetentionZero()).toEqual([runIdForSlot('gated', T0 + MIN)]);
      expect(await bull.get('default').getJob(runIdForSlot('gated', T0 + MIN))).toBeUndefined();
      clock.t += 3000;
      for (const retry of [true, false]) {
        const again = await dispatcher.dispatch('gated', { slot: T0 + MIN }, { retry });
        expect(again!.enqueued).toEqual([]);
      }
      expect(await bull.get('default').getJobCounts('wait', 'delayed', 'prioritized')).toEqual({
        wait: 0,
        delayed: 0,
        prioritized: 0,
      });
    });

    it('never runs a slot twice when its claimer died after creating the run, even once retention removed it', async () => {
      await routines.upsert(routine({ concurrencyPolicy: 'forbid' }), 'api', T0);
      await fireAt(1);
      // Undo the claimer's last step, as if it died between writing the run and marking the claim done.
      const key = claims.key('gated', T0 + MIN);
      const done = (await conns.command.get(key))!;
      await conns.command.set(key, `p${done.slice(1)}`, 'PX', 600_000);
      expect(await drainWithRetentionZero()).toEqual([runIdForSlot('gated', T0 + MIN)]);
      clock.t += 3000;
      const retried = await dispatcher.dispatch('gated', { slot: T0 + MIN }, { retry: true });
      expect(retried!.enqueued).toEqual([]);
      expect(await claims.get('gated', T0 + MIN)).toMatchObject({ state: 'done' });
      expect(await bull.get('default').getWaitingCount()).toBe(0);
    });

    it('completes a slot whose claimer died after claiming, when its fire is retried', async () => {
      await routines.upsert(routine({ concurrencyPolicy: 'forbid' }), 'api', T0);
      clock.t = T0 + MIN;
      // The dead claimer's claim, exactly as it wrote it just before dying (cursor moved with it).
      const decision = JSON.stringify({ kind: 'fire', source: 'schedule', cancel: [], at: clock.t });
      await conns.command.set(claims.key('gated', T0 + MIN), `p-0|${decision}`, 'PX', 600_000);
      await routines.advanceCursor('gated', T0 + MIN);
      // Another dispatcher racing it a moment later assumes the claimer is alive and busy.
      const racing = await dispatcher.dispatch('gated', { slot: clock.t });
      expect(racing!.enqueued).toEqual([]);
      // The stalled fire comes back as a retry: its maker died, so the decision is completed, once.
      clock.t += 3000;
      const retried = await dispatcher.dispatch('gated', { slot: T0 + MIN }, { retry: true });
      expect(retried!.enqueued).toEqual([runIdForSlot('gated', T0 + MIN)]);
      const again = await dispatcher.dispatch('gated', { slot: T0 + MIN }, { retry: true });
      expect(again!.enqueued).toEqual([]);
    });

    it('completes the newest slot a retried fire claimed before dying, not only its own', async () => {
      await routines.upsert(routine({ concurrencyPolicy: 'forbid' }), 'api', T0);
      // The first attempt, late, handled its own slot (T0+1min) and claimed the next (T0+2min), then died.
      await fireAt(1);
      const decision = JSON.stringify({ kind: 'fire', source: 'schedule', cancel: [], at: T0 + 2 * MIN });
      await conns.command.set(claims.key('gated', T0 + 2 * MIN), `p-0|${decision}`, 'PX', 600_000);
      await routines.advanceCursor('gated', T0 + 2 * MIN);
      clock.t = T0 + 2 * MIN + 1_000;
      const retried = await dispatcher.dispatch('gated', { slot: T0 + MIN }, { retry: true });
      expect(retried!.enqueued).toEqual([runIdForSlot('gated', T0 + 2 * MIN)]);
      expect(await claims.get('gated', T0 + 2 * MIN)).toMatchObject({ state: 'done' });
    });

    it("completes the pending claim a lost fire left at the cursor when the watchdog's repair comes, first and once", async () => {
      await routines.upsert(routine({ concurrencyPolicy: 'forbid' }), 'api', T0);
      // The claim of the slot at T0+1min, pending, its cursor moved, and its fire job gone. Its fire
      // came late: the claim is 4 s old when the repair comes, younger than a claim left to its maker.
      const decision = JSON.stringify({ kind: 'fire', source: 'schedule', cancel: [], at: T0 + 2 * MIN - 1_000 });
      await conns.command.set(claims.key('gated', T0 + MIN), `p-0|${decision}`, 'PX', 600_000);
      await routines.advanceCursor('gated', T0 + MIN);
      // The watchdog sees the next slot overdue by its 3 s tolerance, a few seconds after the claim.
      clock.t = T0 + 2 * MIN + 3_000;
      const repaired = await dispatcher.dispatch('gated', { slot: T0 + 2 * MIN, repair: true });
      expect(repaired!.enqueued[0]).toBe(runIdForSlot('gated', T0 + MIN));
      expect(await claims.get('gated', T0 + MIN)).toMatchObject({ state: 'done' });
      const queued = await bull.get('default').getJobs(['wait', 'delayed', 'prioritized']);
      expect(queued.map((j) => j.id)).toContain(runIdForSlot('gated', T0 + MIN));
      // Asked again, nothing more is made for that slot.
      const again = await dispatcher.dispatch('gated', { slot: T0 + 2 * MIN, repair: true });
      expect(again!.enqueued).not.toContain(runIdForSlot('gated', T0 + MIN));
    });

    it('resolves a claim abandoned past the pending window without a run, rather than risk a second one', async () => {
      await routines.upsert(routine({ concurrencyPolicy: 'forbid' }), 'api', T0);
      const decision = JSON.stringify({ kind: 'fire', source: 'schedule', cancel: [], at: T0 + MIN });
      await conns.command.set(claims.key('gated', T0 + MIN), `p-0|${decision}`, 'PX', 600_000);
      await routines.advanceCursor('gated', T0 + MIN);
      clock.t = T0 + MIN + 5 * MIN;
      const res = await dispatcher.dispatch('gated', { slot: T0 + MIN }, { retry: true });
      expect(res!.skipped).toContainEqual({ id: runIdForSlot('gated', T0 + MIN), reason: 'claim-abandoned' });
    });

    it('creates no run and no state for a routine deleted while its fire was on the way', async () => {
      await routines.upsert(routine({}), 'api', T0);
      await routines.remove('gated');
      expect(await fireAt(1)).toBeUndefined();
      expect(await conns.command.exists(routines.stateKey('gated'))).toBe(0);
    });
  });

  describe('catch-up after downtime', () => {
    it('runs every slot within the misfire grace normally: a dispatch seconds late is not a catch-up', async () => {
      await routines.upsert(
        routine({ concurrencyPolicy: 'forbid', trigger: { kind: 'interval', everyMs: 1000 } }),
        'api',
        T0,
      );
      clock.t = T0 + 5000; // five slots due at once, each at most 4 s late
      const res = await dispatcher.dispatch('gated', { slot: T0 + 1000 });
      expect(res!.enqueued).toEqual([runIdForSlot('gated', T0 + 1000)]);
      expect(res!.skipped.map((s) => s.reason)).toEqual([
        'overlap-forbid',
        'overlap-forbid',
        'overlap-forbid',
        'overlap-forbid',
      ]);
    });

    it('policy last runs the newest missed slot as catch-up when no slot is on time, and supersedes the rest', async () => {
      await routines.upsert(routine({ catchUpPolicy: 'last', misfireGraceMs: 2000 }), 'api', T0);
      clock.t = T0 + 5 * MIN + 30_000; // five slots missed, the newest 30 s ago
      const res = await dispatcher.dispatch('gated', { slot: T0 + MIN });
      const caughtUp = runIdForSlot('gated', T0 + 5 * MIN);
      expect(res!.enqueued[0]).toBe(caughtUp);
      expect(await runs.get(caughtUp)).toMatchObject({ source: 'catch-up' });
      expect(res!.skipped).toEqual(
        [1, 2, 3, 4].map((m) => ({ id: runIdForSlot('gated', T0 + m * MIN), reason: 'superseded' })),
      );
    });
  });
});
