import { Worker } from 'bullmq';
import type { AppConfig } from '@drover/config';
import { SystemClock } from '@drover/redis';
import { testStores } from '@drover/testing';
import { ApiEvents, OperationStore } from '@drover/store';
import { ParkedOperations } from './parked-operations.service';

describe('ParkedOperations on a real redis-server', () => {
  const c = testStores('parked-ops');
  const clock = new SystemClock();
  const store = new OperationStore(c.connections, c.keys);
  const events = new ApiEvents(c.connections, c.keys);
  const config = { env: { instanceId: 'api-test' } } as AppConfig;

  beforeAll(async () => {
    await c.registry.put([{ name: 'q', maxAttempts: 1 }]);
    const ids = ['r-1', 'r-2', 'r-3', 'r-4'];
    await c.runs.enqueueMany(
      ids.map((id) => ({
        id,
        routine: null,
        jobType: 'noop',
        queue: 'q',
        source: 'api',
        scheduledFor: null,
        payload: {},
      })),
    );
    const worker = new Worker(c.keys.bullQueueName('q'), null, {
      connection: c.connections.open('blocking', 'finisher'),
      prefix: c.keys.bullPrefix,
    });
    for (const _ of ids) await (await worker.getNextJob('tok'))!.moveToFailed(new Error('boom'), 'tok');
    await worker.close();
  });

  afterAll(async () => {
    await events.onApplicationShutdown();
    await c.close();
  });

  it('ends an operation cut short by a graceful shutdown as failed, saying how far it got', async () => {
    const ops = new ParkedOperations(c.runs, store, events, clock, config);
    const op = await ops.start({ kind: 'purge', queue: 'q', filter: {}, ratePerSecond: 1, by: 'admin-token' });
    expect(op).toMatchObject({ status: 'running', matched: 4, instance: 'api-test' });
    await ops.onApplicationShutdown();
    const after = await store.get(op.id, clock.now());
    expect(after).toMatchObject({ status: 'failed', matched: 4, finishedAt: expect.any(Number) });
    expect(after!.done).toBeLessThan(4);
    expect(after!.error).toBe(
      `the api process shut down after ${after!.done} of 4 runs; run the operation again for the rest`,
    );
    expect(await c.runs.parkedCount('q')).toBe(4 - after!.done);
  });
});
