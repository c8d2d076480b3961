import { fakeTimeEnv, startHttpOracle, type HttpOracle } from '@drover/testing';
import { TestCluster } from './cluster';

const ROUTINES = ['skew-every-a', 'skew-every-b', 'skew-cron'];

/**
 * One machine's clock 3 s ahead (libfaketime; its monotonic clock stays true). Drover schedules by
 * the cluster clock (Redis TIME), so no run may reach the receiver before its slot — measured by
 * the receiver's own, true clock — whichever process is skewed.
 */
describe.each([
  ['the leading scheduler', 'scheduler'],
  ['the worker', 'worker'],
] as const)('%s runs 3 s ahead of the cluster', (_label, skewed) => {
  let oracle: HttpOracle;
  let cluster: TestCluster;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    cluster = new TestCluster({
      queues: [{ name: 'default', concurrency: 20 }],
      routines: ROUTINES.map((name) => ({
        name,
        jobType: 'http.request',
        queue: 'default',
        trigger: name.endsWith('cron') ? { kind: 'cron', cron: '* * * * * *' } : { kind: 'interval', everyMs: 1000 },
        payload: { url: `${oracle.url}/hit`, method: 'POST' },
      })),
    });
  });

  afterAll(async () => {
    await cluster.stopAll();
    await oracle.close();
  });

  it('starts no run before its slot, from the first one on, and the skewed process says its clock is off', async () => {
    const env = (app: string) => (app === skewed ? fakeTimeEnv(3) : {});
    const scheduler = await cluster.start('scheduler', 'sched-1', env('scheduler'));
    const worker = await cluster.start('worker', 'worker-1', env('worker'));
    const since = Date.now();
    await oracle.waitFor(
      'six seconds of runs',
      (h) => ROUTINES.every((r) => h.filter((x) => x.routine === r && x.receivedAt > since).length >= 6),
      30_000,
    );
    const early = oracle.hits
      .map((h) => ({ routine: h.routine, slot: h.scheduledFor, earlyByMs: Date.parse(h.scheduledFor) - h.receivedAt }))
      .filter((h) => h.earlyByMs > 0);
    expect(early).toEqual([]);
    await (skewed === 'scheduler' ? scheduler : worker).waitForLog(/clock is 3\.0 s ahead of Redis/, 5_000);
  }, 60_000);
});
