import { parseBundle, type Routine } from '@drover/core';
import { triggerRoutine } from '@drover/store';
import { dispatcherHarness } from '../testing/dispatcher-harness';

const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
const MIN = 60_000;

function routine(concurrencyPolicy: string): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [
      {
        name: 'gated',
        jobType: 'noop',
        queue: 'default',
        trigger: { kind: 'interval', everyMs: MIN },
        concurrencyPolicy,
      },
    ],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

describe('a manual run is seen by the overlap policy (real Redis, real BullMQ)', () => {
  let h: Awaited<ReturnType<typeof dispatcherHarness>>;

  beforeEach(async () => {
    h = await dispatcherHarness([{ name: 'default' }], T0);
  });

  afterEach(async () => {
    await h.close();
  });

  async function triggerThenFire(policy: string) {
    await h.routines.upsert(routine(policy), 'api', T0);
    const manual = await triggerRoutine({ routines: h.routines, runs: h.runs }, 'gated', {
      now: T0,
      random: Math.random,
    });
    h.clock.t = T0 + MIN;
    const fired = await h.dispatcher.dispatch('gated', { slot: h.clock.t });
    return { manual: manual.id, fired: fired!, open: (await h.runs.openRunsOfRoutine('gated')).map((r) => r.id) };
  }

  it('a forbid routine skips its next fire while a manual run is still queued', async () => {
    const { manual, fired, open } = await triggerThenFire('forbid');
    expect(fired.enqueued).toEqual([]);
    expect(fired.skipped).toEqual([{ id: expect.stringMatching(/^r-gated-/), reason: 'overlap-forbid' }]);
    expect(open).toEqual([manual]);
  });

  it('a replace routine cancels the manual run for its next fire', async () => {
    const { manual, fired, open } = await triggerThenFire('replace');
    expect(fired.enqueued).toHaveLength(1);
    expect((await h.runs.get(manual))?.status).toBe('canceled');
    expect(open).toEqual(fired.enqueued);
  });

  it('an allow routine lists neither run: nothing reads its open runs', async () => {
    const { fired, open } = await triggerThenFire('allow');
    expect(fired.enqueued).toContain(`r-gated-${T0 + MIN}`);
    expect(open).toEqual([]);
  });
});
