import { jitterOffsetMs } from '@drover/core';
import { startHttpOracle, type HttpOracle } from '@drover/testing';
import { TestCluster, deliveries } from './cluster';

const EVERY_MS = 2_000;
const JITTER_MS = 1_900;
/** Armed ahead (overlap allowed), and decided at each fire (`forbid`): both paths delay the run. */
const ROUTINES = [
  { name: 'jit-armed-a', concurrencyPolicy: 'allow' },
  { name: 'jit-armed-b', concurrencyPolicy: 'allow' },
  { name: 'jit-fired', concurrencyPolicy: 'forbid' },
] as const;

/**
 * Routines with `jitterMs` against real processes: the receiver (an HTTP oracle, its own clock)
 * counts each slot exactly once, from X-Drover-Scheduled-For (the slot, unchanged by jitter), and
 * never sees a run before slot + its offset — for armed runs held by the worker and for runs the
 * scheduler creates when the slot's fire comes.
 */
describe('jitterMs spreads the runs of a slot', () => {
  let oracle: HttpOracle;
  let cluster: TestCluster;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    cluster = new TestCluster({
      queues: [{ name: 'default', concurrency: 10 }],
      routines: ROUTINES.map(({ name, concurrencyPolicy }) => ({
        name,
        jobType: 'http.request',
        queue: 'default',
        trigger: { kind: 'interval', everyMs: EVERY_MS },
        jitterMs: JITTER_MS,
        concurrencyPolicy,
        payload: { url: `${oracle.url}/hit`, method: 'POST' },
      })),
    });
  });

  afterAll(async () => {
    await cluster.stopAll();
    await oracle.close();
  });

  it('delivers each slot once, never before slot + offset', async () => {
    await cluster.start('scheduler', 'sched-1');
    await cluster.start('worker', 'worker-1');
    const from = Date.now() + EVERY_MS;
    const to = from + 4 * EVERY_MS;
    const slots: string[] = [];
    for (let t = Math.ceil(from / EVERY_MS) * EVERY_MS; t <= to; t += EVERY_MS) slots.push(new Date(t).toISOString());
    await oracle.waitFor(
      'every slot of the window delivered',
      (h) => ROUTINES.every(({ name }) => deliveries(h, name, slots).missing.length === 0),
      to - Date.now() + JITTER_MS + 10_000,
    );
    // Another interval: a second delivery of a slot would have come by now.
    await new Promise((r) => setTimeout(r, EVERY_MS));

    for (const { name } of ROUTINES) expect(deliveries(oracle.hits, name, slots)).toMatchObject({ twice: [] });
    const early = oracle.hits.flatMap((h) => {
      const slot = Date.parse(h.scheduledFor);
      const start = slot + jitterOffsetMs(h.routine, slot, JITTER_MS);
      return h.receivedAt < start ? [`${h.routine} ${h.scheduledFor} ${start - h.receivedAt} ms early`] : [];
    });
    expect(early).toEqual([]);
    // Jitter moved the starts away from the slots (the offsets of these slots are not all tiny).
    const offsets = oracle.hits.map((h) => h.receivedAt - Date.parse(h.scheduledFor));
    expect(Math.max(...offsets)).toBeGreaterThan(200);
  }, 60_000);
});
