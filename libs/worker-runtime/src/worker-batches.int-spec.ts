import { QueueEvents, Worker } from 'bullmq';
import { batchIdOf, type NewRun } from '@drover/store';
import { spawn } from 'node:child_process';
import { testRedisUrl, uniquePrefix, waitFor } from '@drover/testing';
import { producer, startRuntime, newRun, type Harness, type RuntimeHandle } from './testing/runtime-harness';

const random = () => 0.5;
let seq = 0;
const run = (jobType: string): NewRun => newRun(`a-batch-${++seq}`, jobType, { freshId: true });

describe('batches on real workers: counted once per run, callbacks enqueued exactly once (real redis-server)', () => {
  let p: Harness;
  let workers: RuntimeHandle[] = [];
  let events: QueueEvents | undefined;
  /** The callback runs BullMQ reports added to queue `cb` (nobody consumes it), by job id. */
  let added: string[];

  async function setUp(queues = [{ name: 'q', concurrency: 20, maxAttempts: 1 }, { name: 'cb' }]) {
    p = await producer(uniquePrefix('batch'), queues);
    events = new QueueEvents(p.keys.bullQueueName('cb'), {
      connection: p.connections.open('blocking', 'events'),
      prefix: p.keys.bullPrefix,
      lastEventId: '0-0',
    });
    added = [];
    events.on('waiting', ({ jobId }) => added.push(jobId));
    await events.waitUntilReady();
  }

  afterEach(async () => {
    await events?.close();
    await Promise.all(workers.map((w) => w.close()));
    workers = [];
    await p?.close();
  });

  /** Waits for `n` added callbacks, then a while longer for any extra one to show. */
  const settledEvents = async (n: number) => {
    await waitFor(`${n} callbacks added`, () => added.length >= n, { timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 500));
  };

  const twoWorkers = async () => {
    for (const id of ['batch-w1', 'batch-w2']) {
      workers.push(await startRuntime(p.prefix, { DROVER_INSTANCE_ID: id, DROVER_QUEUES: 'q' }));
    }
  };

  it('with 300 runs settling at once on two workers, enqueues onComplete and onSuccess once each', async () => {
    await setUp();
    await twoWorkers();
    const id = batchIdOf(Date.now(), random);
    const runs = Array.from({ length: 300 }, () => run('test.count'));
    await p.runs.batches.create({
      id,
      runs,
      callbacks: { onComplete: { queue: 'cb', payload: { report: 7 } }, onSuccess: { queue: 'cb', jobType: 'ok' } },
    });
    await waitFor('the batch to complete', async () => (await p.runs.batches.get(id))?.firedAt, { timeoutMs: 20_000 });
    await settledEvents(2);
    expect(added.sort()).toEqual([`${id}.complete`, `${id}.success`]);
    const cb = await p.bull.get('cb').getJob(`${id}.complete`);
    expect(cb?.name).toBe('batch.complete');
    expect(cb?.data.payload).toEqual({
      batch: id,
      on: 'complete',
      total: 300,
      succeeded: 300,
      parked: 0,
      canceled: 0,
      payload: { report: 7 },
    });
    expect(await p.runs.batches.get(id)).toMatchObject({ status: 'complete', settled: 300, percent: 100 });
  }, 30_000);

  it('counts parked and canceled runs as settled: onComplete once with the counts, onSuccess never', async () => {
    await setUp();
    const id = batchIdOf(Date.now(), random);
    const runs = [...Array.from({ length: 8 }, () => run('test.count')), run('test.permanent'), run('test.count')];
    const waiting = runs[9]!.id;
    await p.runs.batches.create({ id, runs, callbacks: { onComplete: { queue: 'cb' }, onSuccess: { queue: 'cb' } } });
    // Canceled while queued: no worker sees it, the cancel counts it.
    expect((await p.runs.cancel(waiting)).outcome).toBe('canceled');
    expect(await p.runs.batches.get(id)).toMatchObject({ status: 'open', settled: 1, canceled: 1 });
    await twoWorkers();
    await waitFor('the batch to complete', async () => (await p.runs.batches.get(id))?.firedAt, { timeoutMs: 20_000 });
    await settledEvents(1);
    expect(added).toEqual([`${id}.complete`]);
    const cb = await p.bull.get('cb').getJob(`${id}.complete`);
    expect(cb?.data.payload).toMatchObject({ total: 10, succeeded: 8, parked: 1, canceled: 1 });
    expect(await p.runs.batches.get(id)).toMatchObject({
      callbacks: [
        { on: 'complete', queue: 'cb', runId: `${id}.complete` },
        { on: 'success', queue: 'cb', runId: null },
      ],
    });
  }, 30_000);

  it('adds no second callback for a replayed settle, even after a crash before the fire was recorded and retention removed the first', async () => {
    await setUp();
    const id = batchIdOf(Date.now(), random);
    const runs = [run('test.count'), run('test.count')];
    await p.runs.batches.create({ id, runs, callbacks: { onComplete: { queue: 'cb' } } });
    const batches = p.runs.batches;
    expect(await batches.settle(id, runs[0]!.id, 'succeeded')).toEqual([]);
    expect(await batches.settle(id, runs[1]!.id, 'succeeded')).toEqual(['complete']);
    // The same run settled again (a second delivery): counted once, nothing fires.
    expect(await batches.settle(id, runs[1]!.id, 'parked')).toEqual([]);
    // A worker that died after adding the callback and before recording it; meanwhile the callback
    // ran and retention removed it. The replayed settle finds the batch complete and not fired.
    await p.connections.command.hdel(p.keys.batch(id), 'fired');
    const callbacks = new Worker(p.keys.bullQueueName('cb'), async () => 'done', {
      connection: p.connections.open('blocking', 'cb-worker'),
      prefix: p.keys.bullPrefix,
      removeOnComplete: { count: 0 },
    });
    await waitFor('retention to remove the callback', async () => !(await p.bull.get('cb').getJob(`${id}.complete`)));
    await callbacks.close();
    expect(await batches.settle(id, runs[1]!.id, 'succeeded')).toEqual(['complete']);
    await settledEvents(1);
    expect(added).toEqual([`${id}.complete`]);
    expect(await batches.get(id)).toMatchObject({ succeeded: 2, parked: 0, settled: 2 });
  });

  it('costs a run without a batch no command on batch keys, at enqueue or when it settles (seen by MONITOR)', async () => {
    await setUp();
    await twoWorkers();
    // redis-cli's MONITOR, not ioredis's (which loses track of its replies under this much traffic).
    const monitor = spawn('redis-cli', ['-u', testRedisUrl(), 'monitor']);
    let out = '';
    monitor.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor('MONITOR to start', () => out.startsWith('OK'));
    const plain = [run('test.count'), run('test.permanent')];
    await p.runs.enqueueMany(plain);
    for (const r of plain) await p.runs.waitForTerminal(r.id, 10_000);
    // And a run of a batch, so this test sees what it looks for when it is there.
    const id = batchIdOf(Date.now(), random);
    const batched = run('test.count');
    await p.runs.batches.create({ id, runs: [batched], callbacks: {} });
    await p.runs.waitForTerminal(batched.id, 10_000);
    await waitFor('the batch settled', async () => (await p.runs.batches.get(id))?.firedAt);
    await p.connections.command.ping();
    await new Promise((r) => setTimeout(r, 200));
    monitor.kill();
    // Only this test's keys: test files run side by side on the same Redis.
    const seen = out.split('\n').filter((l) => l.includes(`${p.prefix}:`));
    const onBatchKeys = (runId: string) => seen.filter((l) => l.includes(runId) && /\{core\}:batch/.test(l)).length;
    expect(plain.map((r) => onBatchKeys(r.id))).toEqual([0, 0]);
    // Everything before the batch was written (the plain runs' whole lives): nothing on batch keys.
    const before = seen.slice(
      0,
      seen.findIndex((l) => l.includes(id)),
    );
    expect(before.filter((l) => l.includes(plain[0]!.id)).length).toBeGreaterThan(0);
    expect(before.filter((l) => /\{core\}:batch/.test(l))).toEqual([]);
    expect(onBatchKeys(batched.id)).toBeGreaterThan(0);
  }, 30_000);
});
