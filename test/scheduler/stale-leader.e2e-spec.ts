import { startHttpOracle, waitFor, type AppProcess, type HttpOracle } from '@drover/testing';
import { TestCluster, deliveredTwice, deliveries, secondSlots } from './cluster';

const TTL_MS = 2000;

describe('a leader frozen past its lease (SIGSTOP, then SIGCONT)', () => {
  let oracle: HttpOracle;
  let cluster: TestCluster;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    cluster = new TestCluster(
      {
        queues: [{ name: 'default', concurrency: 20 }],
        routines: ['tick-a', 'tick-b'].map((name) => ({
          name,
          jobType: 'http.request',
          queue: 'default',
          trigger: { kind: 'interval', everyMs: 1000 },
          payload: { url: `${oracle.url}/hit`, method: 'POST' },
        })),
      },
      { DROVER_LEADER_TTL_MS: String(TTL_MS) },
    );
  });

  afterAll(async () => {
    await cluster.stopAll();
    await oracle.close();
  });

  it('steps down on waking, cannot fire or write, and no slot runs twice', async () => {
    const schedulers: AppProcess[] = [
      await cluster.start('scheduler', 'sched-1'),
      await cluster.start('scheduler', 'sched-2'),
    ];
    await cluster.start('worker', 'worker-1');
    const stale = await cluster.waitForLeader(schedulers);
    const other = schedulers.find((s) => s !== stale)!;
    const windowStart = Date.now() + 2000;
    await oracle.waitFor('a few runs', (h) => h.some((x) => Date.parse(x.scheduledFor) >= windowStart + 2000), 20_000);

    process.kill(stale.pid, 'SIGSTOP');
    await cluster.waitForLeader([other], 4 * TTL_MS);
    // Frozen well past its lease while the other one leads.
    await oracle.waitFor(
      'runs under the new leader',
      (h) => h.filter((x) => x.receivedAt > Date.now() - 500).length > 0,
      10_000,
    );
    await new Promise((r) => setTimeout(r, TTL_MS)); // the freeze itself must outlast the lease
    process.kill(stale.pid, 'SIGCONT');

    await stale.waitForLog(/stepped down as leader/, 10_000);
    expect(stale.output()).toMatch(/"reason":"(lease expired locally before renewal|lease lost to another instance)"/);
    await waitFor(
      'the woken scheduler to report drover_leader 0',
      async () => (await cluster.leader([stale])) === undefined,
      {
        timeoutMs: 5_000,
      },
    );
    expect(await cluster.leader([other])).toBe(other);

    const windowEnd = Date.now() + 4000;
    await oracle.waitFor(
      'the end of the window',
      (h) => h.some((x) => Date.parse(x.scheduledFor) >= windowEnd + 1000),
      20_000,
    );
    for (const routine of ['tick-a', 'tick-b']) {
      // Deliveries counted per slot at the receiver (not run ids, which derive from the slot).
      expect(deliveries(oracle.hits, routine, secondSlots(windowStart, windowEnd))).toEqual({
        routine,
        missing: [],
        twice: [],
      });
      expect(deliveredTwice(oracle.hits, routine)).toEqual([]);
    }
  }, 90_000);
});
