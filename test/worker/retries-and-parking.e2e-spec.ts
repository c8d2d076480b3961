import { httpRun, scrape, testCluster, type TestCluster } from './support/cluster';
import { Oracle } from './support/oracle';

/**
 * A handler that always fails, with maxAttempts 3 and a fixed 200 ms backoff: attempted exactly
 * three times (attempts 1, 2, 3 seen by the receiver), then parked with all three errors; nothing
 * re-hands it (observed for 3 s); an operator replay runs it again as a new run.
 */
describe('retries and the parked area (real worker process)', () => {
  let cluster: TestCluster;
  let oracle: Oracle;

  beforeAll(async () => {
    oracle = await new Oracle().start();
    cluster = await testCluster('park', [{ name: 'hooks', maxAttempts: 3, backoff: { type: 'fixed', delayMs: 200 } }]);
  }, 60_000);

  afterAll(async () => {
    await cluster?.close();
    await oracle?.stop();
  }, 30_000);

  it('attempts 3 times with the backoff, parks with every error, never retries by itself, and replays', async () => {
    const worker = await cluster.startWorker('worker-park');
    const ready = (await (await fetch(`${worker.baseUrl}/readyz`)).json()) as { details: Record<string, unknown> };
    expect(ready.details.consuming).toEqual({ status: 'up' });

    const slot = Date.UTC(2026, 0, 1, 2, 0, 0);
    // The scheduled run always fails; its replay (a new run id) succeeds.
    oracle.answer = (call) => ({ status: call.runId === 'r-nightly-hook-1767232800000' ? 500 : 200 });
    await cluster.runs.enqueue(
      httpRun('r-nightly-hook-1767232800000', 'hooks', `${oracle.url}/hook`, {
        routine: 'nightly-hook',
        source: 'schedule',
        scheduledFor: slot,
      }),
    );
    const { run } = await cluster.runs.waitForTerminal('r-nightly-hook-1767232800000', 30_000);
    expect(run).toMatchObject({ status: 'parked', attempt: 3, maxAttempts: 3, reason: 'attempts-exhausted' });

    const calls = oracle.callsOf('r-nightly-hook-1767232800000');
    expect(calls.map((c) => c.attempt)).toEqual([1, 2, 3]);
    for (const c of calls) {
      expect(c).toMatchObject({ routine: 'nightly-hook', scheduledFor: '2026-01-01T02:00:00.000Z', method: 'POST' });
    }
    // The fixed backoff separates each answer from the next attempt.
    expect(calls[1]!.at - calls[0]!.answeredAt!).toBeGreaterThanOrEqual(190);
    expect(calls[2]!.at - calls[1]!.answeredAt!).toBeGreaterThanOrEqual(190);

    expect(run!.errors!.map((e) => [e.attempt, e.kind])).toEqual([
      [1, 'error'],
      [2, 'error'],
      [3, 'error'],
    ]);
    for (const e of run!.errors!) {
      expect(e.message).toMatch(/answered 500/);
      expect(e.failedAt).toBeGreaterThanOrEqual(e.startedAt!);
    }
    const parked = await cluster.runs.listParked('hooks');
    expect(parked.map((p) => p.id)).toEqual(['r-nightly-hook-1767232800000']);
    expect(parked[0]!.payload).toMatchObject({ url: `${oracle.url}/hook` });

    // Parked means parked: no attempt 4 arrives (a 3 s window on a 200 ms backoff).
    expect(await oracle.happensWithin(() => oracle.calls.length > 3, 3_000)).toBe(false);
    expect((await cluster.runs.get('r-nightly-hook-1767232800000'))?.status).toBe('parked');

    expect(await scrape(worker, /^drover_runs_total\{queue="hooks",job_type="http.request",status="retried"\}/)).toBe(
      2,
    );
    expect(await scrape(worker, /^drover_runs_total\{queue="hooks",job_type="http.request",status="parked"\}/)).toBe(1);

    const replay = await cluster.runs.replayParked('hooks', 'r-nightly-hook-1767232800000');
    const { run: again } = await cluster.runs.waitForTerminal(replay.id, 30_000);
    expect(again).toMatchObject({
      status: 'succeeded',
      source: 'replay',
      replayOf: 'r-nightly-hook-1767232800000',
      routine: 'nightly-hook',
      scheduledFor: slot,
      attempt: 1,
    });
    expect(oracle.callsOf(replay.id).map((c) => [c.attempt, c.scheduledFor])).toEqual([
      [1, '2026-01-01T02:00:00.000Z'],
    ]);
    expect(await cluster.runs.get('r-nightly-hook-1767232800000')).toMatchObject({
      status: 'failed',
      replayedAs: replay.id,
    });
    expect(await cluster.runs.parkedCount('hooks')).toBe(0);

    // The worker's catalog entry is in Redis for the cluster view.
    const [entry] = await cluster.catalog.list();
    expect(entry).toMatchObject({ instanceId: 'worker-park', queues: [{ name: 'hooks', concurrency: 10 }] });
    expect(entry!.jobTypes).toEqual(expect.arrayContaining(['noop', 'sleep', 'http.request']));
  }, 90_000);
});
