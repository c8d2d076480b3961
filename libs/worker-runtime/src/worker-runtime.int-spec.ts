import { uniquePrefix } from '@drover/testing';
import { JobCanceledError } from './errors/job-canceled.error';
import {
  gate,
  gates,
  failing,
  producer,
  startRuntime,
  metric,
  newRun,
  type Harness,
  type RuntimeHandle,
} from './testing/runtime-harness';

describe('WorkerRuntime against a real redis-server', () => {
  let p: Harness;
  let w: RuntimeHandle | undefined;

  afterEach(async () => {
    await w?.close();
    w = undefined;
    await p?.close();
  });

  it('runs a job and records it on the run: result, progress, worker, attempt, metrics', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q' }]);
    w = await startRuntime(p.prefix, { DROVER_INSTANCE_ID: 'worker-a' });
    const scheduledFor = Date.now() - 250;
    await p.runs.enqueue(
      newRun('r-daily-1', 'test.echo', { routine: 'daily', source: 'schedule', scheduledFor, payload: { x: 1 } }),
    );
    const { run } = await p.runs.waitForTerminal('r-daily-1', 10_000);
    expect(run).toMatchObject({
      status: 'succeeded',
      routine: 'daily',
      scheduledFor,
      attempt: 1,
      worker: 'worker-a',
      progress: 50,
      result: { echo: { x: 1 }, attempt: 1 },
    });
    expect(await metric(w.metrics, 'succeeded')).toBe(1);
    const lateness = (await w.metrics.fireLateness.get()).values.find((v) => v.metricName?.endsWith('_count'));
    expect(lateness?.value).toBe(1);
    expect(await p.runs.listByRoutine('daily')).toEqual([
      expect.objectContaining({ id: 'r-daily-1', status: 'succeeded' }),
    ]);
  });

  it('retries with the queue backoff, parks when attempts are exhausted, and replays as a new run', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 3, backoff: { type: 'fixed', delayMs: 100 } }]);
    w = await startRuntime(p.prefix);
    failing.on = true;
    await p.runs.enqueue(newRun('a-fail', 'test.fail'));
    const { run } = await p.runs.waitForTerminal('a-fail', 10_000);
    expect(run).toMatchObject({ status: 'parked', attempt: 3, maxAttempts: 3, reason: 'attempts-exhausted' });
    const errors = run!.errors!;
    expect(errors.map((e) => [e.attempt, e.kind, e.message])).toEqual([
      [1, 'error', 'failed attempt 1'],
      [2, 'error', 'failed attempt 2'],
      [3, 'error', 'failed attempt 3'],
    ]);
    // The fixed 100 ms backoff lies between one failure and the next start.
    expect(errors[1]!.startedAt! - errors[0]!.failedAt).toBeGreaterThanOrEqual(95);
    expect(errors[2]!.startedAt! - errors[1]!.failedAt).toBeGreaterThanOrEqual(95);
    expect(await metric(w.metrics, 'retried')).toBe(2);
    expect(await metric(w.metrics, 'parked')).toBe(1);

    expect(await p.runs.parkedCount('q')).toBe(1);
    expect((await p.runs.listParked('q')).map((r) => r.id)).toEqual(['a-fail']);
    expect(await p.runs.getParked('a-fail')).toMatchObject({ payload: {}, errors: expect.any(Array) });

    failing.on = false;
    const replay = await p.runs.replayParked('q', 'a-fail');
    expect(replay.replayOf).toBe('a-fail');
    expect(await p.runs.replayParked('q', 'a-fail')).toEqual(replay); // idempotent
    const { run: again } = await p.runs.waitForTerminal(replay.id, 10_000);
    expect(again).toMatchObject({
      status: 'succeeded',
      source: 'replay',
      replayOf: 'a-fail',
      attempt: 1,
      result: 'fixed',
    });
    expect(await p.runs.get('a-fail')).toMatchObject({ status: 'failed', replayedAs: replay.id });
    expect(await p.runs.parkedCount('q')).toBe(0);
  });

  it('parks at once on a PermanentError or an invalid payload, without retrying', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 5 }]);
    w = await startRuntime(p.prefix);
    await p.runs.enqueueMany([
      newRun('a-perm', 'test.permanent'),
      newRun('a-bad', 'test.typed', { payload: { n: 'x' } }),
    ]);
    expect((await p.runs.waitForTerminal('a-perm', 10_000)).run).toMatchObject({
      status: 'parked',
      attempt: 1,
      reason: 'permanent-error',
      error: { message: 'the report no longer exists', permanent: true },
    });
    const bad = (await p.runs.waitForTerminal('a-bad', 10_000)).run!;
    expect(bad).toMatchObject({ status: 'parked', attempt: 1, reason: 'permanent-error' });
    expect(bad.errors).toEqual([
      expect.objectContaining({ kind: 'invalid-payload', message: expect.stringMatching(/^invalid payload: n:/) }),
    ]);
    expect(await metric(w.metrics, 'retried')).toBe(0);
  });

  it('fails an attempt that outlives its timeout as a timeout; the handler sees its signal abort', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 1 }]);
    w = await startRuntime(p.prefix);
    await p.runs.enqueue(newRun('a-slow', 'test.block', { timeoutMs: 200 }));
    const { run } = await p.runs.waitForTerminal('a-slow', 10_000);
    expect(run).toMatchObject({
      status: 'parked',
      errors: [expect.objectContaining({ kind: 'timeout', message: 'timed out after 200 ms' })],
    });
    const e = run!.errors![0]!;
    expect(e.failedAt - e.startedAt!).toBeGreaterThanOrEqual(190);
    // The handler never returns: only the abort ends it. 25× the timeout is room for a loaded
    // machine, still far from a timer armed in the wrong unit.
    expect(e.failedAt - e.startedAt!).toBeLessThan(5_000);
    expect((gates.get('a-slow')!.aborts[0] as Error).name).toBe('JobTimeoutError');
  });

  it('cancels: a queued run never starts, a running one is aborted and ends canceled, an ended one is left alone', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 3 }]);
    w = await startRuntime(p.prefix);
    await p.runs.enqueue(newRun('a-later', 'test.block', { delayMs: 60_000 }));
    expect((await p.runs.get('a-later'))?.status).toBe('scheduled');
    expect(await p.runs.cancel('a-later', 'not needed')).toMatchObject({
      outcome: 'canceled',
      run: { status: 'canceled', reason: 'not needed' },
    });
    expect(await p.runs.get('a-later')).toMatchObject({ status: 'canceled', reason: 'not needed' });
    expect(await p.runs.enqueue(newRun('a-later', 'test.block'))).toEqual({ id: 'a-later', created: false });

    await p.runs.enqueue(newRun('a-running', 'test.block'));
    await gate('a-running').started;
    expect((await p.runs.cancel('a-running', 'replaced')).outcome).toBe('cancel-requested');
    const { run } = await p.runs.waitForTerminal('a-running', 10_000);
    expect(run).toMatchObject({ status: 'canceled', reason: 'replaced', attempt: 1 });
    expect(gate('a-running').aborts).toEqual([new JobCanceledError('replaced')]);
    expect(await metric(w.metrics, 'canceled')).toBe(1);
    expect(await metric(w.metrics, 'retried')).toBe(0);

    expect(await p.runs.cancel('a-running', 'again')).toMatchObject({
      outcome: 'already-final',
      run: { status: 'canceled' },
    });
    expect((await p.runs.cancel('nope', 'x')).outcome).toBe('not-found');
  });
});
