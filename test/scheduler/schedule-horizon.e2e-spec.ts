import { parseBundle, type Routine } from '@drover/core';
import { FIRES_QUEUE } from '@drover/store';
import { startHttpOracle, waitFor, type HttpOracle } from '@drover/testing';
import { TestCluster, deliveries } from './cluster';

const HORIZON_MS = 2_000;
const EVERY_MS = 2_000;
/** How far ahead of its creation the routine starts: well past the horizon, whatever the load. */
const START_AHEAD_MS = 9_000;

/**
 * DROVER_SCHEDULE_HORIZON_MS against real processes: a routine whose first slot is beyond the
 * horizon is created with no Job Scheduler (only an entry in `{core}:schedules-later`), and the
 * leader writes it in time for that slot. Counted at the receiver (X-Drover-Scheduled-For): the
 * first slot and the next ones run once each, the first within a second and a half of its slot
 * (a slot left to the watchdog's repair would run 3 s or more after it).
 */
describe('a schedule beyond the horizon is written in time for its first slot', () => {
  let oracle: HttpOracle;
  let cluster: TestCluster;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    cluster = new TestCluster(
      { queues: [{ name: 'default', concurrency: 4 }], routines: [] },
      { DROVER_SCHEDULE_HORIZON_MS: String(HORIZON_MS) },
    );
    await cluster.start('scheduler', 'sched-1');
    await cluster.startWorker('worker-1');
  }, 60_000);

  afterAll(async () => {
    await cluster.stopAll();
    await oracle.close();
  });

  it('runs the first slot and the next ones once each, on time', async () => {
    const start = Math.ceil((Date.now() + START_AHEAD_MS) / EVERY_MS) * EVERY_MS;
    const res = parseBundle(
      {
        routines: [
          {
            name: 'later',
            jobType: 'http.request',
            queue: 'default',
            trigger: { kind: 'interval', everyMs: EVERY_MS },
            startAt: new Date(start).toISOString(),
            payload: { url: `${oracle.url}/hit`, method: 'POST' },
          },
        ],
      },
      { knownQueues: ['default'] },
    );
    if (!res.ok) throw new Error(res.errors.join());
    const def: Routine = res.bundle.routines[0]!;
    await cluster.routines.upsert(def, 'api', Date.now());
    const redis = cluster.connections.command;
    await waitFor(
      'the leader to reconcile the routine',
      async () => (await redis.hexists(cluster.keys.schedulerDefs(), 'later')) === 1,
      { timeoutMs: 5_000, intervalMs: 50 },
    );
    // Reconciled, yet not in BullMQ: entered for later, to be written a horizon before its start.
    expect(Number(await redis.zscore(cluster.keys.schedulesLater(), 'later'))).toBe(start - HORIZON_MS);
    expect(await cluster.bull.get(FIRES_QUEUE).getJobScheduler('later')).toBeUndefined();

    const slots = [0, 1, 2].map((i) => new Date(start + i * EVERY_MS).toISOString());
    await oracle.waitFor('three slots', (h) => h.some((x) => x.scheduledFor === slots[2]), start - Date.now() + 15_000);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(deliveries(oracle.hits, 'later', slots)).toEqual({ routine: 'later', missing: [], twice: [] });
    const first = oracle.hits.find((x) => x.scheduledFor === slots[0])!;
    expect(first.receivedAt - start).toBeLessThan(1_500);
    expect(oracle.hits.filter((x) => Date.parse(x.scheduledFor) < start)).toEqual([]);
    expect(await redis.zscore(cluster.keys.schedulesLater(), 'later')).toBeNull();
  }, 60_000);
});
