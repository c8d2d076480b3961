import pino from 'pino';
import { parseBundle, slotLedger, type Routine } from '@drover/core';
import { Watchdog } from '../reconcile/watchdog.service';
import { DEFAULT_SCHEDULER_OPTIONS } from '../scheduler-options';
import { dispatcherHarness } from '../testing/dispatcher-harness';
import { emptyResult, SlotApplier } from './slot-applier';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const MIN = 60_000;
const slot = (n: number) => T0 + n * MIN;
const runId = (n: number) => `r-buf-${slot(n)}`;

function routine(): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [
      {
        name: 'buf',
        jobType: 'noop',
        queue: 'default',
        trigger: { kind: 'interval', everyMs: MIN },
        concurrencyPolicy: 'buffer-one',
      },
    ],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

/**
 * buffer-one through the dispatcher, against real Redis and BullMQ (no worker: a run ends by a
 * cancel, or by being removed behind Drover's back to stand for a settler that died before asking).
 */
describe('buffer-one fires (real Redis, real BullMQ)', () => {
  let h: Awaited<ReturnType<typeof dispatcherHarness>>;
  const def = routine();

  beforeEach(async () => {
    h = await dispatcherHarness([{ name: 'default' }], T0);
    await h.routines.upsert(def, 'api', T0);
  });

  afterEach(async () => {
    await h.close();
  });

  const fire = async (n: number) => {
    h.clock.t = slot(n);
    return (await h.dispatcher.dispatch('buf', { slot: slot(n) }))!;
  };
  const status = async (n: number) => (await h.runs.get(runId(n)))?.status;

  it('runs the first fire, buffers the second behind it, skips the third; a cancel of the first starts the second', async () => {
    expect((await fire(1)).enqueued).toEqual([runId(1)]);
    // Never armed ahead: whether a slot runs, waits or is skipped is known only at its fire.
    expect((await h.routines.getState('buf')).armed).toEqual([]);
    expect(await h.runs.get(runId(2))).toBeNull();
    expect((await fire(2)).enqueued).toEqual([runId(2)]);
    expect(await h.runs.get(runId(2))).toMatchObject({ status: 'scheduled', bufferedBehind: runId(1) });
    expect((await fire(3)).skipped).toEqual([{ id: runId(3), reason: 'overlap-buffer-full' }]);
    expect(await h.claims.get('buf', slot(2))).toMatchObject({ decision: { kind: 'fire', behind: [runId(1)] } });

    expect((await h.runs.cancel(runId(1))).outcome).toBe('canceled');
    expect(await status(2)).toBe('queued');
    // The buffered run is now the active one: the next fire waits behind it.
    expect((await fire(4)).enqueued).toEqual([runId(4)]);
    expect(await h.runs.get(runId(4))).toMatchObject({ status: 'scheduled', bufferedBehind: runId(2) });

    // The ledger: slot 2 ran (buffered, then started) with its run id; slot 3 skipped with the reason.
    const records = await h.runs.slotRecords('buf', slot(0), slot(4));
    const ledger = slotLedger('buf', { trigger: def.trigger!, from: slot(0), to: slot(4), now: slot(4), records });
    const slots = ledger.ok ? ledger.slots : [];
    expect(slots.map((s) => [s.slot, s.fate, s.reason, s.runs.map((r) => [r.id, r.status, r.bufferedBehind])])).toEqual(
      [
        [slot(1), 'ran', undefined, [[runId(1), 'canceled', undefined]]],
        [slot(2), 'ran', undefined, [[runId(2), 'queued', runId(1)]]],
        [slot(3), 'skipped', 'overlap-buffer-full', []],
        [slot(4), 'ran', undefined, [[runId(4), 'scheduled', runId(2)]]],
      ],
    );
  });

  it('starts the buffered run at once when the run it was decided behind ended before it was written', async () => {
    await fire(1);
    await h.runs.cancel(runId(1));
    // A decision made while run 1 was still active, applied after it ended.
    const applier = new SlotApplier(h.runs, h.metrics);
    const decision = {
      kind: 'fire' as const,
      source: 'schedule' as const,
      cancel: [],
      at: slot(2),
      behind: [runId(1)],
    };
    await applier.apply(def, { slot: slot(2), rev: 0, now: slot(2) }, decision, emptyResult());
    expect(await h.runs.get(runId(2))).toMatchObject({ status: 'queued', bufferedBehind: runId(1) });
    // Applied again (a dispatcher completing the claim): one run, still started once.
    await applier.apply(def, { slot: slot(2), rev: 0, now: slot(2) }, decision, emptyResult());
    expect(await h.bull.get('default').getJobCounts('wait', 'delayed')).toEqual({ wait: 1, delayed: 0 });
  });

  it('repairs a buffered run whose active run ended unseen: at the next fire, and by the leader', async () => {
    await fire(1);
    await fire(2);
    // Run 1 ends without anyone asking for the buffered run (its settler died).
    await h.bull.get('default').remove(runId(1));
    expect(await status(2)).toBe('scheduled');
    // The next fire starts it, then buffers itself behind it.
    expect((await fire(3)).enqueued).toEqual([runId(3)]);
    expect(await status(2)).toBe('queued');
    expect(await h.runs.get(runId(3))).toMatchObject({ status: 'scheduled', bufferedBehind: runId(2) });

    // The leader's full pass does the same for a routine that fires seldom.
    await h.bull.get('default').remove(runId(2));
    const watchdog = new Watchdog(
      h.routines,
      h.index,
      h.disarmer,
      h.bull,
      h.clock,
      h.metrics,
      DEFAULT_SCHEDULER_OPTIONS,
      pino({ level: 'silent' }),
      h.runs,
    );
    const record = (await h.routines.get('buf'))!;
    const snap = { records: [record], states: new Map() };
    expect(await watchdog.repairBuffered(snap, () => true)).toEqual([runId(3)]);
    expect(await watchdog.repairBuffered(snap, () => true)).toEqual([]);
    expect(await status(3)).toBe('queued');
  });
});
