import pino from 'pino';
import { Worker } from 'bullmq';
import { testRedisClient, uniquePrefix, waitFor } from '@drover/testing';
import {
  gate,
  gates,
  producer,
  startRuntime,
  metric,
  newRun,
  type Harness,
  type RuntimeHandle,
} from './testing/runtime-harness';

describe('WorkerRuntime leases, missing handlers, drain and the queue registry (real redis-server)', () => {
  let p: Harness;
  let w: RuntimeHandle | undefined;

  afterEach(async () => {
    await w?.close();
    w = undefined;
    await p?.close();
  });

  it('counts an attempt lost to an expired lease and reclaims the run as attempt 2', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 3, leaseMs: 500 }]);
    await p.runs.enqueue(newRun('a-lost', 'test.echo'));
    // A "worker" takes the run and dies: it never renews the 500 ms lock.
    const dead = new Worker(p.keys.bullQueueName('q'), null, {
      connection: p.connections.open('blocking', 'dead'),
      prefix: p.keys.bullPrefix,
      lockDuration: 500,
    });
    const taken = await dead.getNextJob('dead-token');
    expect(taken?.id).toBe('a-lost');
    await dead.close(true);
    w = await startRuntime(p.prefix);
    const { run } = await p.runs.waitForTerminal('a-lost', 15_000);
    expect(run).toMatchObject({ status: 'succeeded', attempt: 2, result: { attempt: 2 } });
    expect((await w.metrics.leaseReclaims.get()).values).toEqual([
      expect.objectContaining({ value: 1, labels: { queue: 'q' } }),
    ]);
  });

  it('parks a run whose last attempt was lost to its lease, without running it again', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 1, leaseMs: 500 }]);
    await p.runs.enqueue(newRun('a-lost-last', 'test.block'));
    const dead = new Worker(p.keys.bullQueueName('q'), null, {
      connection: p.connections.open('blocking', 'dead'),
      prefix: p.keys.bullPrefix,
      lockDuration: 500,
    });
    await dead.getNextJob('dead-token');
    await dead.close(true);
    w = await startRuntime(p.prefix);
    const { run } = await p.runs.waitForTerminal('a-lost-last', 15_000);
    expect(run).toMatchObject({ status: 'parked', attempt: 1, reason: 'lease-expired' });
    expect(run!.errors).toEqual([expect.objectContaining({ attempt: 1, kind: 'lease-expired' })]);
    expect(gates.has('a-lost-last')).toBe(false);
    expect(await metric(w.metrics, 'parked')).toBe(1);
  });

  it('honours a cancel written on a run whose worker died: the reclaimed run ends canceled without running', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 3, leaseMs: 500 }]);
    await p.runs.enqueue(newRun('a-cancel-dead', 'test.block'));
    const dead = new Worker(p.keys.bullQueueName('q'), null, {
      connection: p.connections.open('blocking', 'dead'),
      prefix: p.keys.bullPrefix,
      lockDuration: 500,
    });
    await dead.getNextJob('dead-token');
    expect((await p.runs.cancel('a-cancel-dead', 'operator')).outcome).toBe('cancel-requested');
    await dead.close(true);
    w = await startRuntime(p.prefix);
    const { run } = await p.runs.waitForTerminal('a-cancel-dead', 15_000);
    expect(run).toMatchObject({ status: 'canceled', reason: 'operator' });
    expect(gates.has('a-cancel-dead')).toBe(false);
  });

  it('fails (and finally parks) a run whose job type has no handler on this worker', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 } }]);
    w = await startRuntime(p.prefix, { DROVER_INSTANCE_ID: 'worker-x' });
    await p.runs.enqueue(newRun('a-unknown', 'reports.generate'));
    const { run } = await p.runs.waitForTerminal('a-unknown', 10_000);
    expect(run).toMatchObject({ status: 'parked', attempt: 2 });
    expect(run!.error!.message).toMatch(
      /^no handler for job type "reports.generate" on worker worker-x \(handlers: test\./,
    );
  });

  it('stops an attempt whose lease it lost; the re-run is attempt 2 and outcomes are counted once', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 3, leaseMs: 600 }]);
    w = await startRuntime(p.prefix);
    await p.runs.enqueue(newRun('a-stolen', 'test.block'));
    const g = gate('a-stolen');
    expect(await g.started).toBe(1);
    // Another party took the lease (as after a long pause of this worker): renewal fails.
    const redis = testRedisClient();
    await redis.del(`${p.bull.keys.bullJob('q', 'a-stolen')}:lock`);
    redis.disconnect();
    await waitFor('the lost attempt to be aborted', () => g.aborts.length > 0, { timeoutMs: 10_000 });
    expect((g.aborts[0] as Error).name).toBe('LeaseLostError');
    await waitFor('the run to start again', async () => (await p.runs.get('a-stolen'))?.attempt === 2, {
      timeoutMs: 15_000,
    });
    g.release();
    const { run } = await p.runs.waitForTerminal('a-stolen', 10_000);
    expect(run).toMatchObject({ status: 'succeeded', attempt: 2 });
    expect(await metric(w.metrics, 'succeeded')).toBe(1);
    expect(await metric(w.metrics, 'retried')).toBe(0);
    expect(await metric(w.metrics, 'parked')).toBe(0);
  });

  it('drains on shutdown: a run still going after the grace period goes back to its queue without using an attempt', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 1 }]);
    w = await startRuntime(p.prefix, { DROVER_SHUTDOWN_GRACE_MS: '200', DROVER_INSTANCE_ID: 'worker-a' });
    await p.runs.enqueueMany([newRun('a-quick', 'test.block'), newRun('a-long', 'test.block')]);
    await Promise.all([gate('a-quick').started, gate('a-long').started]);
    const closing = w.close();
    gate('a-quick').release(); // finishes within the grace period
    await closing;
    w = undefined;
    expect(await p.runs.get('a-quick')).toMatchObject({ status: 'succeeded' });
    expect(await p.runs.get('a-long')).toMatchObject({ status: 'queued', attempt: 0 });
    expect((gate('a-long').aborts[0] as Error).name).toBe('WorkerShutdownError');

    gates.delete('a-long');
    w = await startRuntime(p.prefix, { DROVER_INSTANCE_ID: 'worker-b' });
    expect(await gate('a-long').started).toBe(1); // maxAttempts 1 and still allowed to run
    gate('a-long').release();
    expect((await p.runs.waitForTerminal('a-long', 10_000)).run).toMatchObject({
      status: 'succeeded',
      worker: 'worker-b',
    });
  });

  it('two workers given the same DROVER_INSTANCE_ID both log it as an error, naming the id and the other process', async () => {
    p = await producer(uniquePrefix('rt'), [{ name: 'q' }]);
    const lines: { level: number; msg: string }[][] = [[], []];
    const capture = (i: number) =>
      pino({ level: 'info' }, { write: (line: string) => void lines[i]!.push(JSON.parse(line)) });
    const errors = (i: number) => lines[i]!.filter((l) => l.level === 50).map((l) => l.msg);
    const env = { DROVER_INSTANCE_ID: 'worker-twin' };
    const twins = [await startRuntime(p.prefix, env, capture(0)), await startRuntime(p.prefix, env, capture(1))];
    try {
      // Each worker's heartbeat (every 5 s) finds the other's entry under the id after its first write.
      await waitFor('both workers to log the duplicate', () => errors(0).length > 0 && errors(1).length > 0, {
        timeoutMs: 20_000,
        intervalMs: 100,
      });
      for (const i of [0, 1]) {
        expect(errors(i)).toEqual([
          expect.stringMatching(
            new RegExp(
              `^duplicate DROVER_INSTANCE_ID "worker-twin": another running worker process uses it \\(pid ${process.pid} on `,
            ),
          ),
        ]);
      }
    } finally {
      await Promise.all(twins.map((t) => t.close()));
    }
  }, 30_000);

  it('follows the queue registry, narrowed by DROVER_QUEUES, and writes the ceilings where BullMQ enforces them', async () => {
    p = await producer(uniquePrefix('rt'), []);
    w = await startRuntime(p.prefix, { DROVER_QUEUES: 'mine' });
    expect(w.runtime.consumedQueues().map((q) => q.name)).toEqual(['mine']);
    await p.registry.put([
      { name: 'mine', concurrency: 4, globalConcurrency: 2, rateLimit: { max: 10, durationMs: 1000 } },
      { name: 'other' },
    ]);
    await waitFor('the new policy', () => w!.runtime.consumedQueues()[0]?.concurrency === 4);
    expect(w.runtime.consumedQueues().map((q) => q.name)).toEqual(['mine']);
    const redis = testRedisClient();
    expect(await redis.hgetall(`${p.prefix}:mine:meta`)).toMatchObject({
      concurrency: '2',
      max: '10',
      duration: '1000',
    });
    await p.registry.put([{ name: 'mine' }]);
    expect(await redis.hmget(`${p.prefix}:mine:meta`, 'concurrency', 'max')).toEqual([null, null]);
    redis.disconnect();
  });
});
