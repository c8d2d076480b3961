import type { INestApplicationContext } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { InvalidOptionsError, InvalidPayloadError } from '@drover/core';
import { UnknownQueueError } from '@drover/store';
import { testRedisClient, testRedisUrl, uniquePrefix, waitFor } from '@drover/testing';
import type { DroverClient } from './drover-client.service';
import { defineQueues, gate, reportsGenerate, startProducer, starts, startWorker } from '../test/client-test-harness';

describe('DroverClient.enqueueBatch with a real redis-server and a worker runtime', () => {
  let prefix: string;
  let worker: INestApplicationContext;
  let producer: { app: INestApplicationContext; client: DroverClient };
  let client: DroverClient;
  let redis: Redis;
  const keyCount = async () => (await redis.keys(`${prefix}:*`)).filter((k) => !k.includes(':qstats:')).length;

  beforeAll(async () => {
    prefix = uniquePrefix('client-batch');
    await defineQueues(prefix, [
      { name: 'default' },
      { name: 'reports' },
      { name: 'done' },
      { name: 'keyed', concurrency: 10, concurrencyKey: { source: 'option', limit: 1 } },
      { name: 'by-tenant', concurrencyKey: { source: 'payload.tenant', limit: 1 } },
    ]);
    worker = await startWorker(prefix);
    producer = await startProducer({
      redis: testRedisUrl(),
      prefix,
      name: 'billing-api',
      contracts: [reportsGenerate],
    });
    client = producer.client;
    redis = testRedisClient();
  });

  afterAll(async () => {
    await producer?.app.close();
    await worker?.close();
    redis?.disconnect();
  });

  it('writes the runs with their contract defaults, and answers the batch complete with its callback run', async () => {
    const id = await client.enqueueBatch(
      [
        { job: reportsGenerate, payload: { month: '2026-01' } },
        { job: reportsGenerate, payload: { month: '2026-02' } },
      ],
      { onComplete: { queue: 'done', payload: { notify: 'ops' } } },
    );
    expect(await client.getBatch(id)).toMatchObject({ id, total: 2, createdBy: 'billing-api' });
    const batch = await waitFor('the batch fired', async () => {
      const b = await client.getBatch(id);
      return b?.firedAt !== null && b;
    });
    expect(batch).toMatchObject({
      status: 'complete',
      succeeded: 2,
      callbacks: [{ on: 'complete', queue: 'done', jobType: 'batch.complete', runId: `${id}.complete` }],
    });
    expect(await client.getRun(`${id}.complete`)).toMatchObject({
      queue: 'done',
      payload: {
        batch: id,
        on: 'complete',
        total: 2,
        succeeded: 2,
        parked: 0,
        canceled: 0,
        payload: { notify: 'ops' },
      },
    });
    expect(await client.getBatch('bt-nope')).toBeNull();
  });

  it('refuses a bad batch before writing anything', async () => {
    const before = await keyCount();
    const run = { job: 'report.any', payload: {} };
    await expect(client.enqueueBatch([])).rejects.toThrow(InvalidOptionsError);
    await expect(client.enqueueBatch([{ ...run, options: { idempotencyKey: 'k' } }])).rejects.toThrow(
      /idempotencyKey: runs of a batch take none/,
    );
    await expect(client.enqueueBatch([run], { onSuccess: { queue: 'Not A Queue' } })).rejects.toThrow(
      /onSuccess\.queue/,
    );
    await expect(client.enqueueBatch([run], { onComplete: { queue: 'missing' } })).rejects.toThrow(UnknownQueueError);
    await expect(client.enqueueBatch([run, { job: reportsGenerate, payload: { month: 7 } }])).rejects.toThrow(
      InvalidPayloadError,
    );
    await expect(client.enqueueBatch([{ ...run, options: { queue: 'keyed', concurrencyKey: '' } }])).rejects.toThrow(
      /concurrencyKey/,
    );
    // A key its queue's policy refuses (an object where a string is needed): refused before the batch's record.
    const tenant = (t: unknown) => ({ job: 'report.any', payload: { tenant: t }, options: { queue: 'by-tenant' } });
    await expect(client.enqueueBatch([tenant('acme'), tenant({ id: 1 })])).rejects.toThrow(/payload\.tenant/);
    expect(await keyCount()).toBe(before);
  });

  it("passes each run's concurrencyKey through: a batch on one key runs within the key's limit, then completes", async () => {
    const item = { job: 'test.gate', payload: {}, options: { queue: 'keyed', concurrencyKey: 'acme' } };
    const id = await client.enqueueBatch([item, item, item], { onComplete: { queue: 'done' } });
    const mine = async () => (await client.listRuns({ queue: 'keyed' })).filter((r) => r.batch === id);
    const started = () => starts.filter((s) => s.jobType === 'test.gate').map((s) => s.id);
    for (let i = 1; i <= 3; i++) {
      await waitFor(`run ${i} of the key started`, () => started().length >= i);
      expect(started()).toHaveLength(i);
      const runs = await mine();
      expect(runs.map((r) => r.concurrencyKey)).toEqual(['acme', 'acme', 'acme']);
      // The key's one place is taken: the runs not yet started wait for it.
      expect(runs.filter((r) => r.waitingForKey).length).toBe(3 - i);
      await new Promise((r) => setTimeout(r, 150));
      expect(started()).toHaveLength(i);
      gate(started()[i - 1]!).open();
    }
    const batch = await waitFor('the batch fired', async () => {
      const b = await client.getBatch(id);
      return b?.firedAt !== null && b;
    });
    expect(batch).toMatchObject({ status: 'complete', total: 3, succeeded: 3 });
  });
});
