import type { INestApplicationContext } from '@nestjs/common';
import { testRedisUrl, uniquePrefix } from '@drover/testing';
import type { DroverClient } from './drover-client.service';
import { NotAwaitingApprovalError } from './index';
import { defineQueues, startProducer, startWorker, starts } from '../test/client-test-harness';

describe('DroverClient approval gates with a real redis-server and a worker runtime', () => {
  let worker: INestApplicationContext;
  let producer: { app: INestApplicationContext; client: DroverClient };
  let client: DroverClient;

  beforeAll(async () => {
    const prefix = uniquePrefix('approvals');
    await defineQueues(prefix, [{ name: 'payouts', approval: { required: true } }]);
    worker = await startWorker(prefix);
    producer = await startProducer({ redis: testRedisUrl(), prefix, name: 'ops-api' });
    client = producer.client;
  });

  afterAll(async () => {
    await producer?.app.close();
    await worker?.close();
  });

  it('approves one run (it runs once) and rejects another (it never starts); a second decision is refused', async () => {
    const yes = await client.enqueue('test.echo', { n: 1 }, { queue: 'payouts' });
    const no = await client.enqueue('test.echo', { n: 2 }, { queue: 'payouts' });
    expect(await client.getRun(yes)).toMatchObject({ status: 'awaiting-approval' });

    expect(await client.approveRun(yes, { reason: 'ok' })).toMatchObject({
      approval: { state: 'approved', by: 'ops-api', reason: 'ok' },
    });
    expect(await client.waitForRun(yes, { timeoutMs: 10_000 })).toMatchObject({ status: 'succeeded' });
    expect(await client.rejectRun(no, { by: 'alice' })).toMatchObject({
      status: 'canceled',
      approval: { state: 'rejected', by: 'alice' },
    });
    await expect(client.approveRun(no)).rejects.toBeInstanceOf(NotAwaitingApprovalError);
    await expect(client.rejectRun(yes)).rejects.toMatchObject({ code: 'not-awaiting-approval' });
    expect(starts.filter((s) => s.id === yes)).toHaveLength(1);
    expect(starts.filter((s) => s.id === no)).toHaveLength(0);
  });
});
