import { Worker, type Job } from 'bullmq';
import { encodeCheckpoint } from '@drover/core';
import { testStores } from '@drover/testing';
import { RunCheckpoints } from './run-checkpoints';
import { isRunJobData } from './run-job-data';
import type { NewRun } from './new-run';

type Stores = ReturnType<typeof testStores>;

const run = (id: string): NewRun => ({
  id,
  routine: null,
  jobType: 'noop',
  queue: 'q',
  source: 'api',
  scheduledFor: null,
  payload: { n: 1.5e300, list: [], empty: {}, text: '{"ck":1,' },
});

const raw = (next: number, attempt = 1) =>
  (encodeCheckpoint({ next }, 1_764_145_000_000, attempt) as { raw: string }).raw;

describe('run checkpoints (against a real redis-server)', () => {
  let c: Stores;
  let worker: Worker | undefined;
  let checkpoints: RunCheckpoints;

  beforeEach(async () => {
    c = testStores('ckpt');
    await c.registry.put([{ name: 'q', maxAttempts: 3 }]);
    checkpoints = new RunCheckpoints(c.connections.command, c.keys);
    // A worker without a processor: the test takes jobs by hand, each with its own lock token.
    worker = new Worker(c.keys.bullQueueName('q'), null, {
      connection: c.connections.open('blocking', 'ckpt-worker'),
      prefix: c.keys.bullPrefix,
      lockDuration: 30_000,
    });
  });

  afterEach(async () => {
    await worker?.close();
    await c?.close();
  });

  const take = async (token: string): Promise<Job> => (await worker!.getNextJob(token, { block: false }))!;
  const dataOf = async (id: string): Promise<string> =>
    (await c.connections.command.hget(c.keys.bullJob('q', id), 'data'))!;

  it('stores for the attempt holding the lock, marks the record once, and leaves the rest of it as it was', async () => {
    await c.runs.enqueue(run('r-1'));
    const before = await dataOf('r-1');
    const job = await take('tok-a');
    expect(await checkpoints.read('q', 'r-1')).toBeUndefined();

    expect(await checkpoints.save('q', 'r-1', 'tok-a', raw(10), job)).toBe(true);
    // Marked by a text edit at the front: the payload's big number, empty list and text are untouched.
    expect(await dataOf('r-1')).toBe(`{"ck":1,${before.slice(1)}`);
    expect(job.data).toMatchObject({ ck: 1 });
    expect(isRunJobData(JSON.parse(await dataOf('r-1')))).toBe(true);
    expect(await checkpoints.read('q', 'r-1')).toBe(raw(10));

    // Later writes leave the record alone.
    expect(await checkpoints.save('q', 'r-1', 'tok-a', raw(20), job)).toBe(true);
    expect(await dataOf('r-1')).toBe(`{"ck":1,${before.slice(1)}`);
    expect(await checkpoints.read('q', 'r-1')).toBe(raw(20));
    // The run view shows it (read with the run alone).
    expect((await c.runs.get('r-1'))?.checkpoint).toEqual({
      at: 1_764_145_000_000,
      attempt: 1,
      size: 11,
      state: { next: 20 },
    });
  });

  it("refuses a stale attempt's write: another token, or a lock that is gone", async () => {
    await c.runs.enqueue(run('r-2'));
    const job = await take('tok-a');
    expect(await checkpoints.save('q', 'r-2', 'tok-a', raw(10), job)).toBe(true);
    expect(await checkpoints.save('q', 'r-2', 'tok-stale', raw(99), job)).toBe(false);
    // The lease expired (nobody renewed the lock): the attempt that had it may not write either.
    await c.connections.command.del(c.keys.bullJobLock('q', 'r-2'));
    expect(await checkpoints.save('q', 'r-2', 'tok-a', raw(98), job)).toBe(false);
    expect(await checkpoints.read('q', 'r-2')).toBe(raw(10));
    const unmarked = await c.runs.enqueue(run('r-3'));
    expect(unmarked.created).toBe(true);
    const other = await take('tok-b');
    expect(await checkpoints.save('q', 'r-3', 'tok-stale', raw(1), other)).toBe(false);
    // Nothing refused was written: neither the checkpoint nor the mark.
    expect(await checkpoints.read('q', 'r-3')).toBeUndefined();
    expect(JSON.parse(await dataOf('r-3'))).not.toHaveProperty('ck');
  });

  it("makes a plain BullMQ job's data a run record holding it as the payload", async () => {
    await c.bull.get('q').add('legacy', { orderId: 7 }, { jobId: 'plain-1' });
    const job = await take('tok-a');
    expect(await checkpoints.save('q', 'plain-1', 'tok-a', raw(3), job)).toBe(true);
    expect(JSON.parse(await dataOf('plain-1'))).toEqual({ payload: { orderId: 7 }, source: 'bullmq', ck: 1 });
    expect(job.data).toEqual({ payload: { orderId: 7 }, source: 'bullmq', ck: 1 });
    expect(await c.runs.get('plain-1')).toMatchObject({ source: 'bullmq', payload: { orderId: 7 } });
  });
});
