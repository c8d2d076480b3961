import { runIdForSlot } from '@drover/core';
import { startHttpOracle, type AppProcess, type HttpOracle } from '@drover/testing';
import { TestCluster, deliveredTwice, deliveries, secondSlots } from './cluster';

const TTL_MS = 2000;
const ROUTINES = ['every-a', 'every-b', 'every-c', 'cron-d', 'cron-e'];

describe('leader failover with 3 schedulers and 1 worker', () => {
  let oracle: HttpOracle;
  let cluster: TestCluster;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    const hit = { url: `${oracle.url}/hit`, method: 'POST' };
    cluster = new TestCluster(
      {
        queues: [{ name: 'default', concurrency: 20, maxAttempts: 3, backoff: { type: 'fixed', delayMs: 200 } }],
        routines: ROUTINES.map((name) => ({
          name,
          jobType: 'http.request',
          queue: 'default',
          trigger: name.startsWith('cron')
            ? { kind: 'cron', cron: '* * * * * *' }
            : { kind: 'interval', everyMs: 1000 },
          payload: hit,
        })),
      },
      { DROVER_LEADER_TTL_MS: String(TTL_MS) },
    );
  });

  afterAll(async () => {
    await cluster.stopAll();
    await oracle.close();
  });

  it('fires every slot of every routine exactly once across a kill -9 of the leader', async () => {
    const schedulers: AppProcess[] = [];
    for (const name of ['sched-1', 'sched-2', 'sched-3']) schedulers.push(await cluster.start('scheduler', name));
    await cluster.start('worker', 'worker-1');
    const leader = await cluster.waitForLeader(schedulers);
    // Slots before this point may have been created while processes were still booting.
    const windowStart = Date.now() + 2000;

    await oracle.waitFor(
      '10 s of runs',
      (h) => h.some((x) => Date.parse(x.scheduledFor) >= windowStart + 8000),
      30_000,
    );
    await leader.stop('SIGKILL');
    const killedAt = Date.now();
    const survivors = schedulers.filter((s) => s !== leader);
    const next = await cluster.waitForLeader(survivors, 4 * TTL_MS);
    const failoverMs = Date.now() - killedAt;
    expect(next).not.toBe(leader);
    expect(failoverMs).toBeLessThan(2 * TTL_MS);

    const windowEnd = windowStart + 45_000 - 3000;
    await oracle.waitFor(
      'the end of the window',
      (h) => h.some((x) => Date.parse(x.scheduledFor) >= windowEnd + 2000),
      60_000,
    );

    const expected = secondSlots(windowStart, windowEnd);
    for (const routine of ROUTINES) {
      // Deliveries counted per slot at the receiver (not run ids, which derive from the slot).
      const seen = deliveries(oracle.hits, routine, expected);
      const why = await Promise.all(seen.missing.map((s) => cluster.run(runIdForSlot(routine, Date.parse(s)))));
      expect({ ...seen, why }).toEqual({ routine, missing: [], twice: [], why: [] });
      expect(deliveredTwice(oracle.hits, routine)).toEqual([]);
    }
    // No attempt beyond the first was needed.
    expect(oracle.hits.filter((h) => h.attempt !== 1)).toEqual([]);
  }, 150_000);
});
