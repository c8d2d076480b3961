import { httpRun, scrape, testCluster, type TestCluster } from './support/cluster';
import { Oracle } from './support/oracle';
import type { AppProcess } from '@drover/testing';

/** Timeouts and cancellation reach a running handler through its AbortSignal (real worker process). */
describe('timeouts and cancel (real worker process)', () => {
  let cluster: TestCluster;
  let oracle: Oracle;
  let worker: AppProcess;

  beforeAll(async () => {
    oracle = await new Oracle().start();
    cluster = await testCluster('abort', [
      { name: 'strict', timeoutMs: 500, maxAttempts: 1 },
      { name: 'plain', maxAttempts: 3 },
    ]);
    worker = await cluster.startWorker('worker-abort');
  }, 60_000);

  afterAll(async () => {
    await cluster?.close();
    await oracle?.stop();
  }, 30_000);

  it('timeoutMs 500 on a 5 s call: the attempt fails as a timeout, not before 0.5 s and long before the answer, and the call is aborted', async () => {
    oracle.answer = () => ({ status: 200, holdMs: 5_000 });
    await cluster.runs.enqueue(httpRun('a-timeout', 'strict', `${oracle.url}/five-seconds`));
    const { run } = await cluster.runs.waitForTerminal('a-timeout', 20_000);
    expect(run).toMatchObject({ status: 'parked', attempt: 1 });
    const [error] = run!.errors!;
    expect(error).toMatchObject({ kind: 'timeout', message: 'timed out after 500 ms' });
    expect(error!.failedAt - error!.startedAt!).toBeGreaterThanOrEqual(450);
    // Before the 5 s answer (10× the timeout: room for a loaded machine; latency is not a test's claim).
    expect(error!.failedAt - error!.startedAt!).toBeLessThan(5_000);
    // The handler's signal aborted its request: the receiver saw the caller hang up before it answered.
    await oracle.until('the call to be aborted', () => !!oracle.callsOf('a-timeout')[0]?.abortedAt, 5_000);
    const [call] = oracle.callsOf('a-timeout');
    expect(call!.answeredAt).toBeUndefined();
    expect(call!.abortedAt! - call!.at).toBeLessThan(5_000);
  }, 90_000);

  it('a cancel reaches the worker holding the run over pub/sub; the run ends canceled and is not retried', async () => {
    oracle.answer = () => ({ hold: 'forever' });
    await cluster.runs.enqueue(httpRun('a-cancel', 'plain', `${oracle.url}/forever`));
    await oracle.until('the call to start', () => oracle.callsOf('a-cancel').length === 1);
    const requested = await cluster.runs.cancel('a-cancel', 'replaced by a newer run');
    expect(requested.outcome).toBe('cancel-requested');
    const { run } = await cluster.runs.waitForTerminal('a-cancel', 10_000);
    expect(run).toMatchObject({ status: 'canceled', reason: 'replaced by a newer run', attempt: 1 });
    await oracle.until('the call to be aborted', () => !!oracle.callsOf('a-cancel')[0]?.abortedAt, 5_000);
    expect(oracle.callsOf('a-cancel')).toHaveLength(1);
    expect(await scrape(worker, /^drover_runs_total\{queue="plain",job_type="http.request",status="canceled"\}/)).toBe(
      1,
    );
    expect(await scrape(worker, /^drover_runs_total\{queue="plain",job_type="http.request",status="retried"\}/)).toBe(
      0,
    );
  }, 90_000);

  it('http.request: a URL outside the allowlist is parked at once; a refused connection and its own timeoutMs fail the attempt', async () => {
    oracle.answer = () => ({ status: 200, holdMs: 5_000 });
    await cluster.runs.enqueueMany([
      httpRun('a-not-allowed', 'strict', 'http://10.255.255.1/hook'),
      httpRun('a-refused', 'strict', 'http://127.0.0.1:1/hook'),
      {
        ...httpRun('a-own-timeout', 'strict', `${oracle.url}/slow`),
        payload: { url: `${oracle.url}/slow`, timeoutMs: 200 },
      },
    ]);
    const [notAllowed, refused, ownTimeout] = await Promise.all(
      ['a-not-allowed', 'a-refused', 'a-own-timeout'].map(
        async (id) => (await cluster.runs.waitForTerminal(id, 20_000)).run,
      ),
    );
    expect(notAllowed).toMatchObject({ status: 'parked', reason: 'permanent-error' });
    expect(notAllowed!.error!.message).toBe(
      'http://10.255.255.1/hook is not allowed: loopback only (DROVER_HTTP_ALLOW is unset)',
    );
    expect(refused).toMatchObject({ status: 'parked', reason: 'attempts-exhausted' });
    expect(refused!.error!.message).toMatch(
      /^POST http:\/\/127\.0\.0\.1:1\/hook failed: connect ECONNREFUSED 127\.0\.0\.1:1$/,
    );
    expect(ownTimeout!.errors).toEqual([
      expect.objectContaining({ kind: 'error', message: `GET ${oracle.url}/slow timed out after 200 ms` }),
    ]);
  }, 90_000);
});
