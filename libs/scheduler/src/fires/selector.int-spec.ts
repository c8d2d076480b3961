import { Worker } from 'bullmq';
import { parseBundle, type CandidateInput, type Routine } from '@drover/core';
import { clearOverrides, DuplicateOverrideError, RoutineNotTriggerableError, triggerRoutine } from '@drover/store';
import { waitFor } from '@drover/testing';
import { dispatcherHarness } from '../testing/dispatcher-harness';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const MIN = 60_000;

function selector(extra: Record<string, unknown> = {}, selectorExtra: Record<string, unknown> = {}): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [
      {
        name: 'metas',
        jobType: 'noop',
        queue: 'default',
        trigger: { kind: 'interval', everyMs: MIN },
        payload: { kind: 'synthesis' },
        selector: { provider: 'owed', ...selectorExtra },
        ...extra,
      },
    ],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

describe('selector routines (real Redis, real BullMQ, the real dispatcher)', () => {
  let h: Awaited<ReturnType<typeof dispatcherHarness>>;
  let owed: CandidateInput[];

  beforeEach(async () => {
    h = await dispatcherHarness([{ name: 'default' }], T0);
    owed = [];
    h.candidates.register('owed', () => owed);
  });

  afterEach(async () => {
    await h.close();
  });

  const tick = async (minute: number) => {
    h.clock.t = T0 + minute * MIN;
    return (await h.dispatcher.dispatch('metas', { slot: h.clock.t }))!;
  };
  const keysOf = async (ids: string[]) =>
    Promise.all(ids.map(async (id) => (await h.runs.get(id))!)).then((rs) => rs.map((r) => [r.key, r.payload]));

  it('enqueues the top candidate by band, then weighted staleness, with its key in the payload', async () => {
    await h.routines.upsert(selector(), 'api', T0);
    owed = [
      { key: 'architect:docs', band: 3, stalenessSec: 9_000 },
      { key: 'builder:api', band: 2, stalenessSec: 100, depth: 3 },
      { key: 'builder:web', band: 2, stalenessSec: 150 },
      { key: 'critic:api', band: 1, stalenessSec: 1 },
    ];
    expect(await keysOf((await tick(1)).enqueued)).toEqual([['critic:api', { kind: 'synthesis', key: 'critic:api' }]]);
    // The first is still queued: its key is pending, so the next tick takes the next one.
    expect(await keysOf((await tick(2)).enqueued)).toEqual([
      ['builder:api', { kind: 'synthesis', key: 'builder:api' }],
    ]);
    expect(await keysOf((await tick(3)).enqueued)).toEqual([
      ['builder:web', { kind: 'synthesis', key: 'builder:web' }],
    ]);
  });

  it('takes up to maxPerTick, one run each, and never arms a selector routine', async () => {
    await h.routines.upsert(selector({}, { maxPerTick: 2 }), 'api', T0);
    owed = [
      { key: 'a', band: 1, stalenessSec: 3 },
      { key: 'b', band: 1, stalenessSec: 2 },
      { key: 'c', band: 1, stalenessSec: 1 },
    ];
    const res = await tick(1);
    expect(await keysOf(res.enqueued)).toEqual([
      ['a', { kind: 'synthesis', key: 'a' }],
      ['b', { kind: 'synthesis', key: 'b' }],
    ]);
    expect((await h.routines.getState('metas')).armed).toEqual([]);
  });

  it('backs off while nothing is owed (ticks skipped ×2, then ×4) and looks every tick again after a success', async () => {
    await h.routines.upsert(selector(), 'api', T0);
    const reasons: string[] = [];
    for (let m = 1; m <= 8; m++) reasons.push((await tick(m)).skipped[0]?.reason ?? 'enqueued');
    expect(reasons).toEqual([
      'nothing-owed', // looks: ×1 → ×2
      'idle-backoff',
      'nothing-owed', // ×2 → ×4
      'idle-backoff',
      'idle-backoff',
      'idle-backoff',
      'nothing-owed',
      'idle-backoff',
    ]);
    // An operator's override succeeds: the next tick looks again (and finds work).
    const { id } = await triggerRoutine({ routines: h.routines, runs: h.runs }, 'metas', {
      now: h.clock.t,
      random: () => 0.5,
      key: 'critic:api',
    });
    const worker = new Worker(keysOfQueue(), async () => 'done', {
      connection: h.conns.open('blocking', 'w'),
      prefix: h.keys.bullPrefix,
    });
    await waitFor('the override to succeed', async () => (await h.runs.get(id))?.status === 'succeeded');
    await worker.close();
    owed = [{ key: 'builder:web', band: 2, stalenessSec: 5 }];
    // Tick 9 would be skipped (×4 backoff, see above); after the success it looks.
    const after = await tick(9);
    expect(await keysOf(after.enqueued)).toEqual([['builder:web', { kind: 'synthesis', key: 'builder:web' }]]);
    expect((await h.routines.getState('metas')).idleMultiplier).toBe(1);
  });

  it('counts a provider that throws, hangs or answers nonsense as a launch failure', async () => {
    await h.routines.upsert(selector({ conditionTimeoutMs: 100 }), 'api', T0);
    h.candidates.register('throws', () => {
      throw new Error('catalog unreachable');
    });
    h.candidates.register('hangs', () => new Promise<CandidateInput[]>(() => undefined));
    h.candidates.register('nonsense', () => [{ band: 1 }] as unknown as CandidateInput[]);
    const failures: string[] = [];
    for (const [m, provider] of [
      [1, 'throws'],
      [2, 'hangs'],
      [3, 'nonsense'],
      [4, 'unknown'],
    ] as const) {
      await h.routines.upsert(selector({ conditionTimeoutMs: 100 }, { provider }), 'api', T0);
      failures.push((await tick(m * 10)).failed[0]?.error ?? 'none');
    }
    expect(failures).toEqual([
      'candidates-failed: catalog unreachable',
      'candidates-failed: candidate provider "hangs" did not answer within 100 ms',
      expect.stringMatching(/^candidates-failed: candidate provider "nonsense" answered candidates\[0\.key\]/),
      'candidates-failed: no candidate provider named "unknown" is registered in this scheduler',
    ]);
  });

  it('serves an override before automatic candidates, refuses a duplicate pending key, and clears overrides', async () => {
    await h.routines.upsert(selector(), 'api', T0);
    owed = [{ key: 'off', band: 1, stalenessSec: null, disabled: true }];
    const trigger = (key: string) =>
      triggerRoutine({ routines: h.routines, runs: h.runs }, 'metas', { now: T0, random: Math.random, key });
    // A disabled candidate is never chosen automatically, but may be triggered by key.
    expect((await tick(1)).enqueued).toEqual([]);
    const first = await trigger('off');
    expect(await h.runs.get(first.id)).toMatchObject({ source: 'manual', key: 'off', payload: { key: 'off' } });
    const dup = await trigger('off').catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(DuplicateOverrideError);
    expect(dup).toMatchObject({ routine: 'metas', key: 'off', pendingRun: first.id });
    // Served first: a manual run ranks before scheduled work in the queue.
    owed = [{ key: 'auto', band: 1, stalenessSec: 50 }];
    expect((await tick(2)).skipped[0]!.reason).toBe('idle-backoff'); // tick 1 found nothing owed
    await tick(3);
    const order = await h.bull.get('default').getJobs(['prioritized'], 0, -1, true);
    expect(order.map((j) => j.data.key)).toEqual(['off', 'auto']);
    // Clearing cancels the override that has not started; the key may be triggered again.
    expect(await clearOverrides({ runs: h.runs }, 'metas')).toEqual([first.id]);
    expect(await h.runs.get(first.id)).toMatchObject({ status: 'canceled', reason: 'override cleared' });
    expect((await trigger('off')).id).not.toBe(first.id);
    // A key makes sense only for a selector routine.
    await h.routines.upsert({ ...selector(), name: 'plain', selector: undefined }, 'api', T0);
    await expect(
      triggerRoutine({ routines: h.routines, runs: h.runs }, 'plain', { now: T0, random: Math.random, key: 'x' }),
    ).rejects.toBeInstanceOf(RoutineNotTriggerableError);
  });

  function keysOfQueue(): string {
    return h.keys.bullQueueName('default');
  }
});
