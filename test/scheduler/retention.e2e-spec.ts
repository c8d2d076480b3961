import { adHocRunId } from '@drover/core';
import { startHttpOracle, type AppProcess, type HttpOracle } from '@drover/testing';
import { TestCluster, deliveredTwice, deliveries, secondSlots } from './cluster';

/**
 * The soak of docs/scheduler.md runs this file longer, with more routines and finished runs flooding
 * the queue: DROVER_SOAK_S (window, default 12), DROVER_SOAK_ROUTINES (default 3),
 * DROVER_SOAK_COUNTS (retention counts, default "0,5"), DROVER_SOAK_LOAD (ad-hoc no-op runs per
 * second into the same queue, default 0).
 */
const WINDOW_MS = Number(process.env.DROVER_SOAK_S ?? 12) * 1000;
const ROUTINE_COUNT = Number(process.env.DROVER_SOAK_ROUTINES ?? 3);
const COUNTS = (process.env.DROVER_SOAK_COUNTS ?? '0,5').split(',').map(Number);
const LOAD_PER_S = Number(process.env.DROVER_SOAK_LOAD ?? 0);
const ROUTINES = Array.from({ length: ROUTINE_COUNT }, (_, i) => (i % 3 === 2 ? `cron-${i}` : `every-${i}`));

/**
 * A queue that keeps no finished run (retention count 0): BullMQ removes each run the moment it
 * finishes, so whether a slot already ran can no longer be read off its job. Every slot must
 * still reach the receiver exactly once — counted at the receiver, per slot.
 */
describe.each(COUNTS)('a queue keeping %i finished runs', (count) => {
  let oracle: HttpOracle;
  let cluster: TestCluster;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    cluster = new TestCluster({
      queues: [{ name: 'default', concurrency: LOAD_PER_S ? 100 : 20, retention: { count } }],
      routines: ROUTINES.map((name) => ({
        name,
        jobType: 'http.request',
        queue: 'default',
        trigger: name.startsWith('cron') ? { kind: 'cron', cron: '* * * * * *' } : { kind: 'interval', everyMs: 1000 },
        payload: { url: `${oracle.url}/hit`, method: 'POST' },
      })),
    });
  });

  afterAll(async () => {
    await cluster.stopAll();
    await oracle.close();
  });

  it(
    'delivers every slot exactly once, armed slots included',
    async () => {
      const schedulers: AppProcess[] = [
        await cluster.start('scheduler', 'sched-1'),
        await cluster.start('scheduler', 'sched-2'),
      ];
      await cluster.start('worker', 'worker-1');
      await cluster.waitForLeader(schedulers);
      const windowStart = Date.now() + 2000;
      const windowEnd = windowStart + WINDOW_MS;
      const load = LOAD_PER_S ? flood(windowEnd + 2000) : Promise.resolve(0);
      await oracle.waitFor(
        'the end of the window',
        (h) => ROUTINES.every((r) => h.some((x) => x.routine === r && Date.parse(x.scheduledFor) >= windowEnd + 2000)),
        WINDOW_MS + 40_000,
      );
      const flooded = await load;
      if (LOAD_PER_S) console.log(`soak: ${flooded} ad-hoc runs alongside, ${oracle.hits.length} deliveries checked`);
      const slots = secondSlots(windowStart, windowEnd);
      for (const routine of ROUTINES) {
        expect(deliveries(oracle.hits, routine, slots)).toEqual({ routine, missing: [], twice: [] });
        expect(deliveredTwice(oracle.hits, routine)).toEqual([]);
      }
    },
    WINDOW_MS + 90_000,
  );

  /** Enqueues no-op runs at LOAD_PER_S until `until` (epoch ms); resolves with how many. */
  async function flood(until: number): Promise<number> {
    let n = 0;
    while (Date.now() < until) {
      const t = Date.now();
      const batch = Array.from({ length: Math.max(1, Math.round(LOAD_PER_S / 10)) }, () => ({
        id: adHocRunId(t, Math.random),
        routine: null,
        jobType: 'noop',
        queue: 'default',
        source: 'api' as const,
        scheduledFor: null,
        payload: {},
      }));
      await cluster.runs.enqueueMany(batch);
      n += batch.length;
      await new Promise((r) => setTimeout(r, Math.max(0, 100 - (Date.now() - t))));
    }
    return n;
  }
});
