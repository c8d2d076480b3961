import { Worker } from 'bullmq';
import type { DroverKeys, RedisConnections } from '@drover/redis';
import { testStores } from '@drover/testing';
import { UnknownQueueError } from '../queues/queue-registry.store';
import type { RunStore, NewRun } from './run.store';

const run = (id: string, queue: string, over: Partial<NewRun> = {}): NewRun => ({
  id,
  routine: null,
  jobType: 'noop',
  queue,
  source: 'api',
  scheduledFor: null,
  payload: {},
  ...over,
});

describe('RunStore.listRecent against a real redis-server', () => {
  let connections: RedisConnections;
  let keys: DroverKeys;
  let runs: RunStore;

  let stores: ReturnType<typeof testStores>;

  beforeEach(async () => {
    stores = testStores('listing');
    ({ connections, keys, runs } = stores);
    await stores.registry.put([{ name: 'q1' }, { name: 'q2' }]);
  });

  afterEach(async () => {
    await stores.close();
  });

  /** Takes the next job of `queue` like a worker would and completes or fails it. */
  async function finishNext(queue: string, fail?: string): Promise<void> {
    const worker = new Worker(keys.bullQueueName(queue), null, {
      connection: connections.open('blocking', 'finisher'),
      prefix: keys.bullPrefix,
    });
    const job = await worker.getNextJob('tok');
    if (!job) throw new Error('no job to finish');
    if (fail) await job.moveToFailed(new Error(fail), 'tok');
    else await job.moveToCompleted({ ok: true }, 'tok');
    await worker.close();
  }

  it('lists the runs of every queue newest first, by status, by queue and up to a limit', async () => {
    await runs.enqueue(run('a-1', 'q1'));
    await finishNext('q1'); // a-1 succeeded
    await runs.enqueue(run('a-2', 'q1', { maxAttempts: 1 }));
    await finishNext('q1', 'boom'); // a-2 parked
    await runs.enqueue(run('a-3', 'q2', { delayMs: 60_000 })); // scheduled
    await runs.enqueue(run('a-4', 'q2')); // queued
    await runs.enqueue(run('a-5', 'q1'));
    await runs.cancel('a-5'); // canceled before it started: no job left, not listed

    const all = await runs.listRecent();
    expect(all.map((r) => [r.id, r.queue, r.status])).toEqual([
      ['a-4', 'q2', 'queued'],
      ['a-3', 'q2', 'scheduled'],
      ['a-2', 'q1', 'parked'],
      ['a-1', 'q1', 'succeeded'],
    ]);
    expect(all[3]!.result).toEqual({ ok: true });
    expect((await runs.listRecent({ status: 'parked' })).map((r) => r.id)).toEqual(['a-2']);
    expect((await runs.listRecent({ status: 'scheduled' })).map((r) => r.id)).toEqual(['a-3']);
    expect((await runs.listRecent({ status: 'canceled' })).map((r) => r.id)).toEqual([]);
    expect((await runs.listRecent({ queue: 'q1' })).map((r) => r.id)).toEqual(['a-2', 'a-1']);
    expect((await runs.listRecent({ limit: 2 })).map((r) => r.id)).toEqual(['a-4', 'a-3']);
  });

  it('names the defined queues when asked for an unknown one', async () => {
    await expect(runs.listRecent({ queue: 'nope' })).rejects.toThrow(UnknownQueueError);
    await expect(runs.listRecent({ queue: 'nope' })).rejects.toThrow(/defined queues: q1, q2/);
  });
});
