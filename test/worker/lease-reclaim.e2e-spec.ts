import { httpRun, scrape, testCluster, type TestCluster } from './support/cluster';
import { Oracle } from './support/oracle';

/**
 * Leases: a worker killed with SIGKILL in the middle of a 10 s run loses its 2 s lease; another
 * worker's stalled-job check reclaims the run and finishes it as attempt 2. A worker frozen
 * (SIGSTOP) past its lease that wakes up and finishes late cannot record the run a second time.
 */
describe('leases (real worker processes)', () => {
  let cluster: TestCluster;
  let oracle: Oracle;

  beforeEach(async () => {
    oracle = await new Oracle().start();
    cluster = await testCluster('lease', [{ name: 'long', leaseMs: 2_000, maxAttempts: 3, concurrency: 2 }]);
  }, 60_000);

  afterEach(async () => {
    await cluster?.close();
    await oracle?.stop();
  }, 30_000);

  it('kill -9 mid-run: another worker finishes it as attempt 2; the run succeeds; nothing is lost', async () => {
    oracle.answer = () => ({ status: 200, holdMs: 10_000 });
    const a = await cluster.startWorker('worker-a');
    await cluster.runs.enqueue(httpRun('a-long', 'long', `${oracle.url}/long`));
    await oracle.until('attempt 1 to start', () => oracle.callsOf('a-long').length === 1);
    const b = await cluster.startWorker('worker-b');
    expect(await a.stop('SIGKILL')).toBe('SIGKILL');

    const { run } = await cluster.runs.waitForTerminal('a-long', 45_000);
    expect(run).toMatchObject({ status: 'succeeded', attempt: 2, worker: 'worker-b' });
    const calls = oracle.callsOf('a-long');
    expect(calls.map((c) => c.attempt)).toEqual([1, 2]);
    expect(calls[0]!.abortedAt).toBeDefined(); // the dead worker's connection went away
    expect(calls[1]!.answeredAt).toBeDefined();
    expect(await scrape(b, /^drover_lease_reclaims_total\{queue="long"\}/)).toBe(1);
    expect(await scrape(b, /^drover_runs_total\{queue="long",job_type="http.request",status="succeeded"\}/)).toBe(1);
  }, 90_000);

  it('a frozen worker that wakes after losing its lease does not record the run again', async () => {
    oracle.answer = (call) => (call.attempt === 1 ? { hold: 'forever' } : { status: 200 });
    const a = await cluster.startWorker('worker-a');
    await cluster.runs.enqueue(httpRun('a-frozen', 'long', `${oracle.url}/frozen`));
    await oracle.until('attempt 1 to start', () => oracle.callsOf('a-frozen').length === 1);
    const b = await cluster.startWorker('worker-b');
    process.kill(a.pid, 'SIGSTOP');
    try {
      const { run } = await cluster.runs.waitForTerminal('a-frozen', 30_000);
      expect(run).toMatchObject({ status: 'succeeded', attempt: 2, worker: 'worker-b' });
    } finally {
      process.kill(a.pid, 'SIGCONT');
    }
    // Worker A wakes up: its lease is gone, so whatever it does with attempt 1 is refused.
    await a.waitForLog(/lost the lease|worker error/, 15_000);
    const run = await cluster.runs.get('a-frozen');
    expect(run).toMatchObject({ status: 'succeeded', attempt: 2, worker: 'worker-b' });
    const succeeded = /^drover_runs_total\{queue="long",job_type="http.request",status="succeeded"\}/;
    expect((await scrape(a, succeeded)) + (await scrape(b, succeeded))).toBe(1);
    expect(await scrape(a, /^drover_runs_total\{queue="long"/)).toBe(0);
  }, 90_000);
});
