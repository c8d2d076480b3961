import { parseBundle, type Routine } from '@drover/core';
import { SystemClock } from '@drover/redis';
import type { RoutineStore } from '@drover/store';
import type { FiresQueue } from '../fires/fires-queue.provider';
import type { Leadership } from '../leadership/leader-elector';
import { startReconcilerHarness, type ReconcilerHarness } from '../testing/reconciler-harness';
import type { Reconciler } from './reconciler.service';

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

function routine(name: string, extra: Record<string, unknown>): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name, jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: HOUR }, ...extra }],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

describe('Reconciler: startAt / endAt on the Job Scheduler (real Redis and BullMQ)', () => {
  let h: ReconcilerHarness;
  let fires: FiresQueue;
  let reconciler: Reconciler;
  let routines: RoutineStore;
  let lead: Leadership;
  let isCurrent: () => boolean;
  const clock = new SystemClock();

  beforeEach(async () => {
    h = await startReconcilerHarness('recb');
    ({ fires, reconciler, routines, lead, isCurrent } = h);
  });

  afterEach(() => h.stop());

  it('starts the Job Scheduler at startAt, ends it at endAt, and removes it once the cursor passed the last slot', async () => {
    const now = clock.now();
    const start = Math.ceil(now / HOUR) * HOUR + 2 * HOUR;
    const end = start + 3 * HOUR;
    await routines.upsert(routine('bounded', { startAt: iso(start), endAt: iso(end) }), 'api', now);
    await reconciler.reconcileAll(lead, isCurrent);
    const js = (await fires.getJobScheduler('bounded'))!;
    // An armable interval routine's fires come 500 ms after their slots (see fireLagMs).
    expect([js.every, js.next, js.endDate]).toEqual([HOUR, start + 500, end + 501]);

    // The cursor at the last slot before endAt: spent, like a handled once.
    await routines.advanceCursor('bounded', end);
    const report = await reconciler.reconcileAll(lead, isCurrent);
    expect(report.removed).toEqual(['bounded']);
    expect(await fires.getJobScheduler('bounded')).toBeUndefined();
  });

  it('writes no Job Scheduler for a routine whose endAt has passed, and removes the one it had', async () => {
    const now = clock.now();
    await routines.upsert(routine('ending', {}), 'api', now - 5 * HOUR);
    await reconciler.reconcileAll(lead, isCurrent);
    expect(await fires.getJobScheduler('ending')).toBeDefined();
    // Slots before the end are still owed (the cursor is behind): the watchdog's, not a timer's.
    await routines.advanceCursor('ending', now - 4 * HOUR);
    await routines.upsert(routine('ending', { endAt: iso(now - HOUR) }), 'api', now);
    await reconciler.reconcileOne('ending', lead, isCurrent);
    expect(await fires.getJobScheduler('ending')).toBeUndefined();
  });
});
