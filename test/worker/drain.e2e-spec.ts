import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testRedisClient } from '@drover/testing';
import { httpRun, testCluster, type TestCluster } from './support/cluster';
import { Oracle } from './support/oracle';

/** Graceful drain on SIGTERM (real worker processes; the queue policy comes from a DROVER_CONFIG file). */
describe('graceful drain (real worker processes)', () => {
  let cluster: TestCluster;
  let oracle: Oracle;
  let configFile: string;

  beforeEach(async () => {
    oracle = await new Oracle().start();
    const queue = { name: 'jobs', concurrency: 5, maxAttempts: 1 };
    cluster = await testCluster('drain', [queue]);
    configFile = join(mkdtempSync(join(tmpdir(), 'drover-drain-')), 'drover.json');
    writeFileSync(configFile, JSON.stringify({ queues: [queue] }));
  }, 60_000);

  afterEach(async () => {
    await cluster?.close();
    await oracle?.stop();
  }, 30_000);

  it('SIGTERM during 2 s runs: they finish, the process exits 0, nothing stalls', async () => {
    oracle.answer = () => ({ status: 200, holdMs: 2_000 });
    const worker = await cluster.startWorker('worker-drain', { DROVER_CONFIG: configFile });
    const ids = ['a-d1', 'a-d2', 'a-d3', 'a-d4'];
    await cluster.runs.enqueueMany(ids.map((id) => httpRun(id, 'jobs', `${oracle.url}/two-seconds`)));
    await oracle.until('4 calls in flight', () => oracle.inFlight === 4);
    const started = Date.now();
    expect(await worker.stop('SIGTERM')).toBe(0);
    // It exits once its runs are done, not when the grace period (the default 30 s) ends; the
    // margin over the 2 s runs is for a loaded machine.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(worker.output()).toMatch(/"msg":"drained"/);
    const redis = testRedisClient();
    for (const id of ids) {
      expect(await cluster.runs.get(id)).toMatchObject({ status: 'succeeded', attempt: 1, worker: 'worker-drain' });
      // `stc` is BullMQ's stalled counter: absent = the run was never reclaimed.
      expect(await redis.hget(cluster.bull.keys.bullJob('jobs', id), 'stc')).toBeNull();
    }
    redis.disconnect();
    expect(oracle.calls).toHaveLength(4);
    expect(oracle.calls.every((c) => c.answeredAt)).toBe(true);
  }, 90_000);

  it('runs still going when the grace period ends go back to the queue and finish elsewhere, attempt unused', async () => {
    oracle.answer = (call, calls) =>
      calls.filter((c) => c.runId === call.runId).length === 1 ? { hold: 'forever' } : { status: 200 };
    const a = await cluster.startWorker('worker-a', { DROVER_CONFIG: configFile, DROVER_SHUTDOWN_GRACE_MS: '500' });
    await cluster.runs.enqueue(httpRun('a-handed-back', 'jobs', `${oracle.url}/slow`));
    await oracle.until('the call to start', () => oracle.callsOf('a-handed-back').length === 1);
    expect(await a.stop('SIGTERM')).toBe(0);
    expect(oracle.callsOf('a-handed-back')[0]!.abortedAt).toBeDefined();
    expect(await cluster.runs.get('a-handed-back')).toMatchObject({ status: 'queued', attempt: 0 });

    await cluster.startWorker('worker-b', { DROVER_CONFIG: configFile });
    const { run } = await cluster.runs.waitForTerminal('a-handed-back', 20_000);
    // maxAttempts is 1: the interrupted attempt did not use it up.
    expect(run).toMatchObject({ status: 'succeeded', attempt: 1, worker: 'worker-b' });
    expect(oracle.callsOf('a-handed-back').map((c) => c.attempt)).toEqual([1, 1]);
  }, 90_000);
});
