import { spawn } from 'node:child_process';
import { Worker } from 'bullmq';
import type { QueueInput } from '@drover/core';
import { batchIdOf, type NewRun } from '@drover/store';
import { testRedisUrl, uniquePrefix, waitFor } from '@drover/testing';
import { keyed, newRun, producer, startRuntime, type Harness, type RuntimeHandle } from './testing/runtime-harness';

let seq = 0;
const run = (tenant: string, ms: number, over: Partial<NewRun> = {}): NewRun =>
  newRun(`a-keyed-${++seq}`, 'test.keyed', { freshId: true, payload: { tenant, ms }, ...over });

describe('per-key concurrency on real workers (real redis-server)', () => {
  let p: Harness;
  let workers: RuntimeHandle[] = [];

  async function setUp(limit: number, over: Partial<QueueInput> = {}, more: QueueInput[] = []) {
    keyed.now.clear();
    keyed.max.clear();
    keyed.log.length = 0;
    p = await producer(uniquePrefix('keyed'), [
      { name: 'q', concurrency: 10, maxAttempts: 3, concurrencyKey: { source: 'payload.tenant', limit }, ...over },
      ...more,
    ]);
  }

  const worker = async (queues = 'q') => {
    workers.push(
      await startRuntime(p.prefix, { DROVER_INSTANCE_ID: `keyed-w${workers.length}`, DROVER_QUEUES: queues }),
    );
  };

  const done = (ids: string[], timeoutMs = 20_000) =>
    Promise.all(ids.map((id) => p.runs.waitForTerminal(id, timeoutMs)));

  afterEach(async () => {
    await Promise.all(workers.map((w) => w.close()));
    workers = [];
    await p?.close();
  });

  it('runs at most `limit` runs of one key at once on a worker of concurrency 10, and all of them', async () => {
    await setUp(2);
    await worker();
    const runs = Array.from({ length: 20 }, () => run('acme', 60));
    await p.runs.enqueueMany(runs.slice(0, 10));
    for (const r of runs.slice(10)) await p.runs.enqueue(r);
    const views = await done(runs.map((r) => r.id));
    expect(views.map((v) => v.run?.status)).toEqual(runs.map(() => 'succeeded'));
    expect(keyed.max.get('acme')).toBe(2);
    expect(keyed.log.filter((l) => l.edge === 'start')).toHaveLength(20);
    // Every place is freed (after BullMQ recorded each end), and the key leaves the queue's list.
    await waitFor('every place freed', async () => (await p.runs.keyed.top('q', 10)).length === 0);
  }, 30_000);

  it('keeps the limit for a batch on one key (source: option): every run settles, counted once by its batch', async () => {
    await setUp(2, { concurrencyKey: { source: 'option', limit: 2 } }, [{ name: 'cb' }]);
    await worker();
    const id = batchIdOf(Date.now(), () => 0.5);
    const runs = Array.from({ length: 10 }, () => run('acme', 60, { concurrencyKey: 'acme' }));
    await p.runs.batches.create({ id, runs, callbacks: { onComplete: { queue: 'cb' } } });
    const views = await done(runs.map((r) => r.id));
    expect(views.map((v) => v.run?.status)).toEqual(runs.map(() => 'succeeded'));
    expect(views.map((v) => v.run?.concurrencyKey)).toEqual(runs.map(() => 'acme'));
    expect(keyed.max.get('acme')).toBe(2);
    expect(keyed.log.filter((l) => l.edge === 'start')).toHaveLength(10);
    await waitFor('the batch fired', async () => (await p.runs.batches.get(id))?.firedAt);
    expect(await p.runs.batches.get(id)).toMatchObject({ status: 'complete', settled: 10, succeeded: 10 });
    // Its one callback, in a queue nobody consumes.
    expect((await p.bull.get('cb').getJobs()).map((j) => j.id)).toEqual([`${id}.complete`]);
    await waitFor('every place freed', async () => (await p.runs.keyed.top('q', 10)).length === 0);
  }, 30_000);

  it("does not hold another key's run behind a hot key's 1,000 held runs", async () => {
    await setUp(2);
    const hot = Array.from({ length: 1_000 }, () => run('hot', 200));
    await p.runs.enqueueMany(hot);
    await worker();
    await waitFor('two hot runs running', () => keyed.now.get('hot') === 2);
    const cold = run('cold', 10);
    const enqueuedAt = Date.now();
    await p.runs.enqueue(cold);
    await done([cold.id], 10_000);
    const coldStart = keyed.log.find((l) => l.run === cold.id && l.edge === 'start')!.at;
    // Hot runs that started between the cold run's enqueue and its start: at most the places the hot key had.
    const hotStarts = keyed.log.filter(
      (l) => l.key === 'hot' && l.edge === 'start' && l.at > enqueuedAt && l.at < coldStart,
    );
    expect(hotStarts.length).toBeLessThanOrEqual(2);
    // Within one hot run's duration (200 ms), with slack for a shared machine.
    expect(coldStart - enqueuedAt).toBeLessThan(1_000);
    await waitFor('the cold key freed', async () => (await p.runs.keyed.top('q', 5)).length === 1);
    expect(await p.runs.keyed.top('q', 5)).toEqual([{ key: 'hot', running: 2, waiting: expect.any(Number) }]);
    expect(keyed.max.get('hot')).toBe(2);
  }, 60_000);

  it('keeps the place of a run being retried: the next run of its key starts only after it settled', async () => {
    await setUp(1, { backoff: { type: 'fixed', delayMs: 300, maxDelayMs: 300 } });
    await worker();
    const first = run('acme', 20, { payload: { tenant: 'acme', ms: 20, failFirst: 1 } });
    const second = run('acme', 20);
    await p.runs.enqueue(first);
    await p.runs.enqueue(second);
    await done([first.id, second.id]);
    const order = keyed.log.map((l) => `${l.run === first.id ? 'first' : 'second'}#${l.attempt}:${l.edge}`);
    expect(order).toEqual([
      'first#1:start',
      'first#1:end',
      'first#2:start',
      'first#2:end',
      'second#1:start',
      'second#1:end',
    ]);
  }, 30_000);

  it('frees the place of a run whose worker died once its lease is reclaimed and it settles', async () => {
    await setUp(1, { leaseMs: 1_000 });
    const lost = run('acme', 20);
    const next = run('acme', 20);
    await p.runs.enqueue(lost);
    await p.runs.enqueue(next);
    // A worker that takes the run and dies (never renews its lock, never ends the job).
    const dead = new Worker(p.keys.bullQueueName('q'), null, {
      connection: p.connections.open('blocking', 'dead-worker'),
      prefix: p.keys.bullPrefix,
      lockDuration: 1_000,
    });
    const taken = await dead.getNextJob('dead-token');
    expect(taken?.id).toBe(lost.id);
    await dead.close(true);
    // `next` is held: no worker can fetch it.
    expect(await p.runs.keyed.top('q', 5)).toEqual([{ key: 'acme', running: 1, waiting: 1 }]);
    await worker();
    await done([lost.id, next.id]);
    const order = keyed.log.map((l) => `${l.run === lost.id ? 'lost' : 'next'}:${l.edge}`);
    expect(order).toEqual(['lost:start', 'lost:end', 'next:start', 'next:end']);
  }, 30_000);

  it('heals a place leaked by a removed job, a promote lost after the release decided, and a run never listed', async () => {
    await setUp(1);
    const [a, b, c] = [run('acme', 20), run('acme', 20), run('acme', 20)];
    for (const r of [a, b, c]) await p.runs.enqueue(r);
    const redis = p.connections.command;
    const keys = p.keys;
    // `a` holds the place; its job removed by hand never settles.
    await p.bull.get('q').remove(a.id);
    // A release that decided for `b` and crashed before promoting it.
    await redis.srem(keys.keyRunning('q', 'acme'), a.id);
    await redis.zrem(keys.keyHeld('q', 'acme'), b.id);
    await redis.sadd(keys.keyRunning('q', 'acme'), a.id, b.id);
    // A producer that died between BullMQ's add of `c` and its hold.
    await redis.zrem(keys.keyHeld('q', 'acme'), c.id);
    expect(await p.runs.keyed.repair('q', 1)).toEqual({ freed: 1, started: 1 });
    expect(await p.runs.keyed.top('q', 5)).toEqual([{ key: 'acme', running: 1, waiting: 1 }]);
    await worker();
    const views = await done([b.id, c.id]);
    expect(views.map((v) => v.run?.status)).toEqual(['succeeded', 'succeeded']);
    expect(keyed.log.filter((l) => l.edge === 'start').map((l) => l.run)).toEqual([b.id, c.id]);
  }, 30_000);

  it('costs a queue without keys no command on key lists, at enqueue or when the run settles (seen by MONITOR)', async () => {
    await setUp(1, {}, [{ name: 'plain', concurrency: 5 }]);
    await worker('q,plain');
    const monitor = spawn('redis-cli', ['-u', testRedisUrl(), 'monitor']);
    let out = '';
    monitor.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor('MONITOR to start', () => out.startsWith('OK'));
    const plain = run('acme', 5, { queue: 'plain' });
    // The second takes the writer's hot path (the queue's facts cached by the first).
    const plain2 = run('acme', 5, { queue: 'plain' });
    const keyedRun = run('acme', 5);
    await p.runs.enqueue(plain);
    await waitFor("the plain queue's facts cached", () => p.runs.policies.peek('plain')?.def);
    await p.runs.enqueue(plain2);
    await done([plain.id, plain2.id]);
    await p.runs.enqueue(keyedRun);
    await done([keyedRun.id]);
    await p.connections.command.ping();
    await new Promise((r) => setTimeout(r, 200));
    monitor.kill();
    const seen = out.split('\n').filter((l) => l.includes(`${p.prefix}:`));
    const plainLife = seen.slice(
      0,
      seen.findIndex((l) => l.includes(keyedRun.id)),
    );
    expect(plainLife.filter((l) => l.includes(plain.id)).length).toBeGreaterThan(0);
    expect(plainLife.filter((l) => l.includes(plain2.id)).length).toBeGreaterThan(0);
    // Nothing on key lists while only the plain run lived: its enqueue and settle took no key step.
    expect(plainLife.filter((l) => /drover:key-(held|running)/.test(l))).toEqual([]);
    expect(seen.filter((l) => l.includes(keyedRun.id) && /drover:key-/.test(l)).length).toBeGreaterThan(0);
  }, 30_000);
});
