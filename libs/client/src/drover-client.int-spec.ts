import type { INestApplicationContext } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { DroverKeys, RedisConnections } from '@drover/redis';
import { BullQueues, UnknownQueueError } from '@drover/store';
import { testRedisClient, testRedisUrl, uniquePrefix } from '@drover/testing';
import type { DroverClient } from './drover-client.service';
import type { RunId } from './drover-run';
import {
  IdempotencyKeyConflictError,
  InvalidOptionsError,
  InvalidPayloadError,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_PAYLOAD_BYTES,
  RunNotFoundError,
  UnknownJobTypeError,
} from '@drover/core';
import { RunWaitTimeoutError } from './errors/run-wait-timeout.error';
import { defineQueues, gate, reportsGenerate, startProducer, startWorker, starts } from '../test/client-test-harness';

const QUEUES = [{ name: 'default' }, { name: 'reports' }, { name: 'serial', concurrency: 1 }];

/** Every key under the prefix (to prove a refused enqueue wrote nothing). */
async function keysOf(redis: Redis, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    out.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  // The worker runtime's once-a-second stats flush writes the per-queue totals on its own clock,
  // whatever the client does: they are not the client's writes.
  return out.filter((k) => !k.includes(':{core}:qstats:')).sort();
}

const startsOf = (id: string) => starts.filter((s) => s.id === id);

describe('DroverClient with a real redis-server and a worker runtime', () => {
  let prefix: string;
  let worker: INestApplicationContext;
  let producer: { app: INestApplicationContext; client: DroverClient };
  let client: DroverClient;
  let redis: Redis;

  beforeAll(async () => {
    prefix = uniquePrefix('client');
    await defineQueues(prefix, QUEUES);
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

  it('enqueues with a contract and waitForRun resolves succeeded with the handler result', async () => {
    const id = await client.enqueue(reportsGenerate, { month: '2026-01' });
    // The run exists when enqueue resolves.
    expect(await client.getRun(id)).toMatchObject({ id, jobType: 'reports.generate', queue: 'reports' });
    const run = await client.waitForRun(id, { timeoutMs: 15_000 });
    expect(run).toMatchObject({
      status: 'succeeded',
      source: 'api',
      createdBy: 'billing-api',
      routine: null,
      scheduledFor: null,
      attempt: 1,
      payload: { month: '2026-01' },
      result: { url: 'http://127.0.0.1/reports/2026-01.pdf', rows: 3 },
    });
    // Typed end to end: the contract's result type reaches the caller.
    const rows: number | undefined = run.result?.rows;
    expect(rows).toBe(3);
    expect(startsOf(id)).toHaveLength(1);
  });

  it('enqueues by job type name on the default queue, validating against a registered contract', async () => {
    const id = await client.enqueue('test.echo', { hello: 'world' }, { priority: 'high', maxAttempts: 2 });
    expect(await client.waitForRun(id, { timeoutMs: 15_000 })).toMatchObject({
      status: 'succeeded',
      queue: 'default',
      maxAttempts: 2,
      result: { echo: { hello: 'world' } },
    });
    await expect(client.enqueue('reports.generate', { month: 'jan' })).rejects.toThrow(
      /invalid payload for job type "reports.generate": month: must be a month like "2026-01"/,
    );
  });

  it('idempotencyKey used concurrently, from two services, yields one run and one start', async () => {
    const other = await startProducer({ redis: testRedisUrl(), prefix, name: 'other-api' });
    try {
      const key = `report:2026-02:${prefix}`;
      const ids = await Promise.all([
        ...[1, 2, 3].map(() => client.enqueue(reportsGenerate, { month: '2026-02' }, { idempotencyKey: key })),
        ...[1, 2, 3].map(() => other.client.enqueue(reportsGenerate, { month: '2026-02' }, { idempotencyKey: key })),
      ]);
      expect(new Set(ids).size).toBe(1);
      const id = ids[0]!;
      expect(id).toMatch(/^k-[0-9a-f]{32}$/);
      expect(await client.waitForRun(id, { timeoutMs: 15_000 })).toMatchObject({ status: 'succeeded' });
      // Within the window (the run is still kept), the key keeps answering the same run and starts nothing.
      expect(await other.client.enqueue(reportsGenerate, { month: '2026-03' }, { idempotencyKey: key })).toBe(id);
      const after = await client.enqueue(reportsGenerate, { month: '2026-02' });
      await client.waitForRun(after, { timeoutMs: 15_000 });
      expect(startsOf(id)).toHaveLength(1);
      const bull = await bullJobs('reports');
      expect(bull.filter((j) => j === id)).toHaveLength(1);
    } finally {
      await other.app.close();
    }
  });

  it('refuses an idempotency key bound to another job type or queue, writing nothing', async () => {
    const key = `conflict:${prefix}`;
    const id = await client.enqueue('test.echo', {}, { idempotencyKey: key, delayMs: 60_000 });
    const before = await keysOf(redis, prefix);
    const err = await client.enqueue(reportsGenerate, { month: '2026-01' }, { idempotencyKey: key }).catch((e) => e);
    expect(err).toBeInstanceOf(IdempotencyKeyConflictError);
    expect(err).toMatchObject({ runId: id, existing: { jobType: 'test.echo', queue: 'default' } });
    expect(err.message).toMatch(/is bound to run k-.* \(job type "test.echo" on queue "default"\)/);
    await expect(client.enqueue('test.echo', {}, { idempotencyKey: key, queue: 'serial' })).rejects.toThrow(
      IdempotencyKeyConflictError,
    );
    expect(await keysOf(redis, prefix)).toEqual(before);
    await client.cancel(id);
  });

  it('ends the window when the run is no longer kept: a canceled run holds its key, a removed one frees it', async () => {
    const key = `window:${prefix}`;
    const id = await client.enqueue('test.echo', { n: 1 }, { idempotencyKey: key, delayMs: 60_000 });
    expect(await client.cancel(id)).toMatchObject({ outcome: 'canceled' });
    // The canceled run's record is kept for the queue's retention: same key, same (canceled) run.
    expect(await client.enqueue('test.echo', { n: 2 }, { idempotencyKey: key })).toBe(id);
    expect(await client.getRun(id)).toMatchObject({ status: 'canceled' });
    // Retention removing the record ends the window: the key starts a new run (with the same id).
    await redis.del(new DroverKeys(prefix, false).runRecord(id));
    expect(await client.enqueue('test.echo', { n: 3 }, { idempotencyKey: key })).toBe(id);
    expect(await client.waitForRun(id, { timeoutMs: 15_000 })).toMatchObject({
      status: 'succeeded',
      result: { echo: { n: 3 } },
    });
  });

  it('runAt in 2 s: the run is scheduled at once and starts no earlier than runAt', async () => {
    const runAt = Date.now() + 2_000;
    const id = await client.enqueue(reportsGenerate, { month: '2026-04' }, { runAt: new Date(runAt) });
    expect(await client.getRun(id)).toMatchObject({ status: 'scheduled', scheduledFor: runAt });
    const run = await client.waitForRun(id, { timeoutMs: 20_000 });
    expect(run.status).toBe('succeeded');
    expect(run.startedAt).toBeGreaterThanOrEqual(runAt);
    expect(startsOf(id)[0]!.at).toBeGreaterThanOrEqual(runAt);
  });

  it('cancel of a queued run means it never starts; of a scheduled one too', async () => {
    // The serial queue runs one at a time: a held gate keeps the next run queued.
    const holder = await client.enqueue('test.gate', {}, { queue: 'serial' });
    await gate(holder).started;
    const queued = await client.enqueue('test.echo', { n: 'queued' }, { queue: 'serial' });
    const scheduled = await client.enqueue('test.echo', { n: 'later' }, { queue: 'serial', delayMs: 60_000 });
    expect(await client.getRun(queued)).toMatchObject({ status: 'queued' });
    expect(await client.cancel(queued)).toMatchObject({ outcome: 'canceled', run: { status: 'canceled' } });
    expect(await client.cancel(scheduled)).toMatchObject({ outcome: 'canceled' });
    expect(await client.waitForRun(queued, { timeoutMs: 1_000 })).toMatchObject({
      status: 'canceled',
      reason: 'canceled by billing-api',
    });
    // Open the gate; a run enqueued after the canceled one runs, the canceled one never does.
    const next = await client.enqueue('test.echo', { n: 'next' }, { queue: 'serial' });
    gate(holder).open();
    expect(await client.waitForRun(next, { timeoutMs: 15_000 })).toMatchObject({ status: 'succeeded' });
    expect(startsOf(queued)).toEqual([]);
    expect(startsOf(scheduled)).toEqual([]);
    expect(await client.cancel(next)).toMatchObject({ outcome: 'already-final' });
    expect(await client.cancel('a-unknown')).toEqual({ outcome: 'not-found', run: null });
  });

  it('cancel of a running run aborts it through its signal', async () => {
    const id = await client.enqueue('test.gate', {});
    await gate(id).started;
    expect(await client.cancel(id, { reason: 'user left' })).toMatchObject({ outcome: 'cancel-requested' });
    expect(await client.waitForRun(id, { timeoutMs: 15_000 })).toMatchObject({
      status: 'canceled',
      reason: 'user left',
    });
  });

  it('enqueueMany creates every run in one call, in order, and each runs once', async () => {
    const ids = await client.enqueueMany([
      { job: 'test.echo', payload: { n: 1 } },
      { job: reportsGenerate, payload: { month: '2026-05' } },
      { job: 'test.echo', payload: { n: 3 }, options: { queue: 'serial', priority: 'high' } },
    ]);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    const runs = await Promise.all(ids.map((id) => client.waitForRun(id, { timeoutMs: 15_000 })));
    expect(runs.map((r) => [r.jobType, r.queue, r.status])).toEqual([
      ['test.echo', 'default', 'succeeded'],
      ['reports.generate', 'reports', 'succeeded'],
      ['test.echo', 'serial', 'succeeded'],
    ]);
    // Counted where the runs start, not by the ids enqueueMany answered.
    expect(ids.map((id) => startsOf(id).length)).toEqual([1, 1, 1]);
  });

  it('enqueueMany answers the existing run for a used idempotency key, and refuses a conflict before writing', async () => {
    const key = `bulk-${Date.now()}`;
    const first = await client.enqueue('test.echo', { n: 'first' }, { idempotencyKey: key, delayMs: 60_000 });
    const [again, other] = await client.enqueueMany([
      { job: 'test.echo', payload: { n: 'again' }, options: { idempotencyKey: key } },
      { job: 'test.echo', payload: { n: 'other' }, options: { delayMs: 60_000 } },
    ]);
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    expect((await client.getRun(first))?.status).toBe('scheduled');

    const before = await keysOf(redis, prefix);
    const err = await client
      .enqueueMany([
        { job: 'test.echo', payload: {}, options: { delayMs: 60_000 } },
        { job: 'test.echo', payload: {}, options: { idempotencyKey: key, queue: 'serial' } },
      ])
      .catch((e) => e);
    expect(err).toBeInstanceOf(IdempotencyKeyConflictError);
    expect(await keysOf(redis, prefix)).toEqual(before);
  });

  it('enqueueMany writes nothing when one item is invalid, and names it', async () => {
    const before = await keysOf(redis, prefix);
    const err = await client
      .enqueueMany([
        { job: 'test.echo', payload: { ok: true } },
        { job: reportsGenerate, payload: { month: 1 } as never },
      ])
      .catch((e) => e);
    expect(err).toBeInstanceOf(InvalidPayloadError);
    expect(err.jobType).toBe('reports.generate');
    // A defined queue first: every queue is checked before any is written.
    await expect(
      client.enqueueMany([
        { job: 'test.echo', payload: {} },
        { job: 'test.echo', payload: {}, options: { queue: 'nope' } },
      ]),
    ).rejects.toThrow(UnknownQueueError);
    expect(await keysOf(redis, prefix)).toEqual(before);
  });

  it('rejects a payload that fails its contract before anything is written', async () => {
    const before = await keysOf(redis, prefix);
    const bad = { month: 202601, extra: true } as unknown as { month: string };
    const err = await client.enqueue(reportsGenerate, bad).catch((e) => e);
    expect(err).toBeInstanceOf(InvalidPayloadError);
    expect(err.jobType).toBe('reports.generate');
    expect(err.issues).toEqual(
      expect.arrayContaining([
        { path: ['month'], message: expect.stringMatching(/expected string, received number/) },
        { path: [], message: expect.stringMatching(/unrecognized key.*"extra"/i) },
      ]),
    );
    expect(err.message).toMatch(/^invalid payload for job type "reports.generate": /);
    // Not plain JSON: refused even without a contract.
    await expect(client.enqueue('test.echo', { at: new Date() })).rejects.toThrow(
      /invalid payload for job type "test.echo": at: a object is not JSON/,
    );
    await expect(client.enqueue('test.echo', { f: Number.NaN })).rejects.toThrow(/f: NaN is not a JSON number/);
    expect(await keysOf(redis, prefix)).toEqual(before);
  });

  it("holds payloads and idempotency keys to core's limits, as the api does: typed errors, nothing written", async () => {
    const before = await keysOf(redis, prefix);
    const payloadOf = (bytes: number) => ({ b: 'x'.repeat(bytes - 8) });
    const over = await client.enqueue('test.echo', payloadOf(MAX_PAYLOAD_BYTES + 1)).catch((e) => e);
    expect(over).toBeInstanceOf(InvalidPayloadError);
    expect(over.issues).toEqual([
      { path: [], message: 'is 262145 bytes as JSON; the limit is 262144 bytes (256 KiB)' },
    ]);
    const key = await client
      .enqueue('test.echo', {}, { idempotencyKey: 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH + 1) })
      .catch((e) => e);
    expect(key).toBeInstanceOf(InvalidOptionsError);
    expect(key.issues).toEqual(['idempotencyKey: has 1025 characters; the limit is 1024']);
    expect(await keysOf(redis, prefix)).toEqual(before);
    // At the limits it is taken.
    const id = await client.enqueue('test.echo', payloadOf(MAX_PAYLOAD_BYTES), {
      idempotencyKey: 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH),
    });
    expect((await client.waitForRun(id)).status).toBe('succeeded');
  });

  it('rejects bad options, unknown queues and job types, naming what is wrong and what is valid', async () => {
    const before = await keysOf(redis, prefix);
    await expect(client.enqueue('test.echo', {}, { queue: 'nope' })).rejects.toThrow(UnknownQueueError);
    await expect(client.enqueue('test.echo', {}, { queue: 'nope' })).rejects.toThrow(
      'queue "nope" is not defined; defined queues: default, reports, serial',
    );
    const err = await client
      .enqueue('test.echo', {}, { runAt: Date.now(), delayMs: 5, priority: 5000 as never, maxAttempts: 0 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(InvalidOptionsError);
    expect(err.message).toMatch(/^invalid enqueue options: /);
    expect(err.issues).toEqual(
      expect.arrayContaining([expect.stringMatching(/^priority: /), expect.stringMatching(/^maxAttempts: /)]),
    );
    await expect(client.enqueue('test.echo', {}, { runAt: 1, delayMs: 5 })).rejects.toThrow(
      'give runAt or delayMs, not both',
    );
    await expect(client.enqueue('test.echo', {}, { queue: 'Bad Queue' })).rejects.toThrow(/queue: is not a queue name/);
    await expect(client.enqueue('test.echo', {}, { runAt: new Date('nope') })).rejects.toThrow(
      /runAt: must be a valid Date or epoch milliseconds/,
    );
    await expect(client.enqueue('', {})).rejects.toThrow(/jobType: "" must be 1-200 characters/);
    expect(await keysOf(redis, prefix)).toEqual(before);

    const strict = await startProducer({
      redis: testRedisUrl(),
      prefix,
      contracts: [reportsGenerate],
      strictJobTypes: true,
    });
    try {
      await expect(strict.client.enqueue('test.echo', {})).rejects.toThrow(UnknownJobTypeError);
      await expect(strict.client.enqueue('test.echo', {})).rejects.toThrow(
        /job type "test.echo" has no registered contract; registered: reports.generate/,
      );
    } finally {
      await strict.app.close();
    }
  });

  it('waitForRun: unknown ids and timeouts are typed errors', async () => {
    await expect(client.waitForRun('a-missing' as RunId, { timeoutMs: 1_000 })).rejects.toThrow(RunNotFoundError);
    const id = await client.enqueue('test.echo', {}, { delayMs: 60_000 });
    const err = await client.waitForRun(id, { timeoutMs: 200 }).catch((e) => e);
    expect(err).toBeInstanceOf(RunWaitTimeoutError);
    expect(err).toMatchObject({ runId: id, timeoutMs: 200, run: { status: 'scheduled' } });
    expect(err.message).toBe(`run ${id} did not end within 200 ms; it is scheduled`);
    await expect(client.waitForRun(id, { timeoutMs: 0 })).rejects.toThrow(/invalid waitForRun options: timeoutMs/);
    await client.cancel(id);
  });

  it('lists runs across queues, by queue and by status', async () => {
    const a = await client.enqueue('test.echo', { list: 1 }, { delayMs: 60_000 });
    const b = await client.enqueue('test.echo', { list: 2 }, { delayMs: 60_000, queue: 'serial' });
    const scheduled = await client.listRuns({ status: 'scheduled' });
    expect(scheduled.map((r) => r.id)).toEqual(expect.arrayContaining([a, b]));
    expect(scheduled.every((r) => r.status === 'scheduled')).toBe(true);
    expect((await client.listRuns({ status: 'scheduled', queue: 'serial' })).map((r) => r.id)).toContain(b);
    expect((await client.listRuns({ status: 'scheduled', queue: 'serial' })).map((r) => r.id)).not.toContain(a);
    expect((await client.listRuns({ limit: 1 })).length).toBe(1);
    await expect(client.listRuns({ limit: 0 })).rejects.toThrow(/invalid listRuns options: limit/);
    await client.cancel(a);
    await client.cancel(b);
  });

  /** The ids of the jobs BullMQ holds for a queue, in any state. */
  async function bullJobs(queue: string): Promise<string[]> {
    const conns = new RedisConnections({ kind: 'url', url: testRedisUrl(), tls: false }, 'test-probe');
    const bull = new BullQueues(conns, new DroverKeys(prefix, false));
    try {
      const jobs = await bull
        .get(queue)
        .getJobs(['completed', 'waiting', 'prioritized', 'active', 'delayed', 'failed']);
      return jobs.map((j) => j.id!);
    } finally {
      await bull.closeAll();
      await conns.closeAll();
    }
  }
});
