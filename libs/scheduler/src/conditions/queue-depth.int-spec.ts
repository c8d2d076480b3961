import { parseBundle, runIdForSlot, type Routine } from '@drover/core';
import { dispatcherHarness } from '../testing/dispatcher-harness';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const MIN = 60_000;

/** `checkQueueRefs: false` stands for a queue removed after the routine was written. */
function routine(condition: unknown, checkQueueRefs = true): Routine {
  const res = parseBundle(
    {
      queues: [{ name: 'default' }, { name: 'exports' }],
      routines: [
        {
          name: 'gated',
          jobType: 'noop',
          queue: 'default',
          trigger: { kind: 'interval', everyMs: MIN },
          condition,
          maxLaunchFailures: 2,
        },
      ],
    },
    { checkQueueRefs },
  );
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

/**
 * The `queue-depth` kind through the real dispatcher: the depth is BullMQ's own count of the
 * queue's waiting and prioritized jobs, read from a real Redis.
 */
describe('condition queue-depth (real Redis, real BullMQ)', () => {
  let h: Awaited<ReturnType<typeof dispatcherHarness>>;

  beforeEach(async () => {
    h = await dispatcherHarness([{ name: 'default' }, { name: 'exports' }], T0);
  });

  afterEach(async () => {
    await h.close();
  });

  const fireAt = (minutes: number) => {
    h.clock.t = T0 + minutes * MIN;
    return h.dispatcher.dispatch('gated', { slot: h.clock.t });
  };

  it('runs while the queue holds fewer than `below` waiting runs and skips, healthy, once it holds that many', async () => {
    await h.routines.upsert(routine({ kind: 'queue-depth', queue: 'exports', below: 3 }), 'api', T0);
    const exports = h.bull.get('exports');
    await exports.add('noop', {});
    await exports.add('noop', {}, { priority: 5 }); // prioritized: waiting too
    await exports.add('noop', {}, { delay: 3_600_000 }); // delayed: not waiting for a worker yet
    expect((await fireAt(1))!.enqueued).toEqual([runIdForSlot('gated', T0 + MIN)]);

    await exports.add('noop', {});
    const res = await fireAt(2);
    expect(res!.skipped).toEqual([{ id: runIdForSlot('gated', T0 + 2 * MIN), reason: 'condition-false' }]);
    expect((await h.routines.getState('gated')).consecutiveFailures).toBe(0);
  });

  it('counts a queue that is not defined (any more) as a launch failure, and disables after maxLaunchFailures', async () => {
    await h.routines.upsert(routine({ kind: 'queue-depth', queue: 'nowhere', below: 3 }, false), 'api', T0);
    const first = await fireAt(1);
    expect(first!.failed).toEqual([
      {
        id: runIdForSlot('gated', T0 + MIN),
        error: 'condition-failed: condition queue-depth: queue "nowhere" is not defined',
      },
    ]);
    await fireAt(2);
    expect((await h.routines.getState('gated')).disabledReason).toMatch(/launch failed 2 times in a row/);
  });
});
