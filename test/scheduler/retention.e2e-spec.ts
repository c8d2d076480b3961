import { startHttpOracle, type AppProcess, type HttpOracle } from '@drover/testing';
import { TestCluster, deliveredTwice, deliveries, secondSlots } from './cluster';

const ROUTINES = ['every-a', 'every-b', 'cron-c'];

/**
 * A queue that keeps no finished run (retention count 0): BullMQ removes each run the moment it
 * finishes, so whether a slot already ran can no longer be read off its job. Every slot must
 * still reach the receiver exactly once — counted at the receiver, per slot.
 */
describe.each([0, 5])('a queue keeping %i finished runs', (count) => {
  let oracle: HttpOracle;
  let cluster: TestCluster;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    cluster = new TestCluster({
      queues: [{ name: 'default', concurrency: 20, retention: { count } }],
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

  it('delivers every slot exactly once, armed slots included', async () => {
    const schedulers: AppProcess[] = [
      await cluster.start('scheduler', 'sched-1'),
      await cluster.start('scheduler', 'sched-2'),
    ];
    await cluster.start('worker', 'worker-1');
    await cluster.waitForLeader(schedulers);
    const windowStart = Date.now() + 2000;
    const windowEnd = windowStart + 12_000;
    await oracle.waitFor(
      'the end of the window',
      (h) => ROUTINES.every((r) => h.some((x) => x.routine === r && Date.parse(x.scheduledFor) >= windowEnd + 2000)),
      40_000,
    );
    const slots = secondSlots(windowStart, windowEnd);
    for (const routine of ROUTINES) {
      expect(deliveries(oracle.hits, routine, slots)).toEqual({ routine, missing: [], twice: [] });
      expect(deliveredTwice(oracle.hits, routine)).toEqual([]);
    }
  }, 90_000);
});
