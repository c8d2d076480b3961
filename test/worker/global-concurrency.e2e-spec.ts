import { httpRun, testCluster, type TestCluster } from './support/cluster';
import { Oracle } from './support/oracle';

/** 2 workers × concurrency 10 on a queue with globalConcurrency 3: never more than 3 runs at once. */
describe('the cluster-wide ceiling (real worker processes)', () => {
  let cluster: TestCluster;
  let oracle: Oracle;

  beforeAll(async () => {
    oracle = await new Oracle().start();
    cluster = await testCluster('ceiling', [{ name: 'narrow', concurrency: 10, globalConcurrency: 3 }]);
  }, 60_000);

  afterAll(async () => {
    await cluster?.close();
    await oracle?.stop();
  }, 30_000);

  it('runs 30 one-second jobs with at most 3 in flight across both workers', async () => {
    oracle.answer = () => ({ status: 200, holdMs: 1_000 });
    await Promise.all([cluster.startWorker('worker-1'), cluster.startWorker('worker-2')]);
    const ids = Array.from({ length: 30 }, (_, i) => `a-ceiling-${i}`);
    await cluster.runs.enqueueMany(ids.map((id) => httpRun(id, 'narrow', `${oracle.url}/one-second`)));
    await oracle.until('30 answers', () => oracle.calls.filter((c) => c.answeredAt).length === 30, 60_000);
    expect(oracle.maxInFlight).toBe(3);
    const runs = await Promise.all(ids.map((id) => cluster.runs.waitForTerminal(id, 10_000)));
    expect(runs.every(({ run }) => run?.status === 'succeeded' && run.attempt === 1)).toBe(true);
  }, 90_000);
});
