import { Worker } from 'bullmq';
import type { QueueInput } from '@drover/core';
import type { DroverKeys, RedisConnections } from '@drover/redis';
import { testRedisClient, testStores, waitFor } from '@drover/testing';
import type { BullQueues } from '../queues/bull-queues';
import { UnknownQueueError, type QueueRegistry } from '../queues/queue-registry.store';
import { cancelChannel, decodeCancel } from './cancel-channel';
import { InvalidPayloadError } from '@drover/core';
import type { RunStore, NewRun } from './run.store';

interface Ctx {
  prefix: string;
  connections: RedisConnections;
  keys: DroverKeys;
  bull: BullQueues;
  registry: QueueRegistry;
  runs: RunStore;
  close(): Promise<void>;
}

async function setup(queues: QueueInput[] = [{ name: 'q' }]): Promise<Ctx> {
  const stores = testStores('runs');
  await stores.registry.put(queues);
  return { ...stores, prefix: stores.keys.prefix };
}

const run = (id: string, over: Partial<NewRun> = {}): NewRun => ({
  id,
  routine: null,
  jobType: 'noop',
  queue: 'q',
  source: 'api',
  scheduledFor: null,
  payload: { n: 1 },
  ...over,
});

/** Completes (or fails) the next job of queue `q` the way a worker would, without Drover's runtime. */
async function finishNext(c: Ctx, fail?: string): Promise<void> {
  const worker = new Worker(c.keys.bullQueueName('q'), null, {
    connection: c.connections.open('blocking', 'finisher'),
    prefix: c.keys.bullPrefix,
  });
  const job = await worker.getNextJob('tok');
  if (!job) throw new Error('no job to finish');
  if (fail) await job.moveToFailed(new Error(fail), 'tok');
  else await job.moveToCompleted({ ok: true }, 'tok', false);
  await worker.close();
}

describe('RunStore against a real redis-server', () => {
  let c: Ctx;
  afterEach(async () => c?.close());

  it('enqueues idempotently: the same id twice is one run', async () => {
    c = await setup();
    expect(await c.runs.enqueue(run('a-1'))).toEqual({ id: 'a-1', created: true });
    expect(await c.runs.enqueue(run('a-1', { payload: { n: 2 } }))).toEqual({ id: 'a-1', created: false });
    expect(await c.runs.enqueueMany([run('a-1'), run('a-2')])).toEqual([
      { id: 'a-1', created: false },
      { id: 'a-2', created: true },
    ]);
    expect(await c.bull.get('q').getJobCounts('prioritized', 'waiting')).toEqual({ prioritized: 0, waiting: 2 });
    expect(await c.runs.get('a-1')).toMatchObject({ status: 'queued', payload: { n: 1 }, attempt: 0, maxAttempts: 3 });
  });

  it('serves first in, first out until another rank arrives; then manual first, then by priority', async () => {
    c = await setup();
    await c.runs.enqueueMany([run('a-1'), run('a-2')]);
    expect(await c.bull.get('q').getJobCounts('prioritized', 'waiting')).toEqual({ prioritized: 0, waiting: 2 });
    await c.runs.enqueue(run('m-1', { source: 'manual' }));
    await c.runs.enqueueMany([
      run('a-3'),
      run('a-4', { priority: 10 }),
      run('a-5', { priority: -10 }),
      run('m-2', { source: 'manual', priority: -5 }),
    ]);
    const worker = new Worker(c.keys.bullQueueName('q'), null, {
      connection: c.connections.open('blocking', 'order'),
      prefix: c.keys.bullPrefix,
    });
    const order: string[] = [];
    for (let i = 0; i < 7; i++) order.push((await worker.getNextJob(`t${i}`, { block: false }))!.id!);
    await worker.close(true);
    // The two runs that were waiting unranked go first (once); then the ranked order.
    expect(order).toEqual(['a-1', 'a-2', 'm-1', 'm-2', 'a-4', 'a-3', 'a-5']);
    expect(await c.runs.get('a-4')).toMatchObject({ priority: 10 });
    expect(await c.runs.get('m-2')).toMatchObject({ priority: -5 });
  });

  it('refuses an unknown queue and a payload that is not plain JSON, storing nothing', async () => {
    c = await setup();
    await expect(c.runs.enqueue(run('a-1', { queue: 'nope' }))).rejects.toThrow(UnknownQueueError);
    await expect(c.runs.enqueue(run('a-1', { queue: 'nope' }))).rejects.toThrow(
      'queue "nope" is not defined; defined queues: q',
    );
    await expect(c.runs.enqueue(run('a-2', { payload: { bad: Number.NaN } }))).rejects.toThrow(InvalidPayloadError);
    expect(await c.runs.get('a-1')).toBeNull();
    expect(await c.runs.get('a-2')).toBeNull();
  });

  it('shows a delayed run as scheduled and a routine override of maxAttempts', async () => {
    c = await setup();
    await c.runs.enqueue(run('a-1', { delayMs: 60_000, maxAttempts: 7 }));
    expect(await c.runs.get('a-1')).toMatchObject({ status: 'scheduled', maxAttempts: 7 });
  });

  it('records skipped fires and lists a routine’s runs newest first', async () => {
    c = await setup();
    await c.runs.enqueue(run('r-x-1', { routine: 'x', source: 'schedule', scheduledFor: 1 }));
    expect(
      await c.runs.recordSkipped({
        id: 'r-x-2',
        routine: 'x',
        jobType: 'noop',
        queue: 'q',
        source: 'schedule',
        scheduledFor: 2,
        reason: 'overlap-forbid',
      }),
    ).toEqual({ id: 'r-x-2', created: true });
    expect(await c.runs.get('r-x-2')).toMatchObject({ status: 'skipped', reason: 'overlap-forbid', scheduledFor: 2 });
    const listed = await c.runs.listByRoutine('x');
    expect(listed.map((r) => [r.id, r.status])).toEqual([
      ['r-x-2', 'skipped'],
      ['r-x-1', 'queued'],
    ]);
    expect((await c.runs.listByRoutine('x', { status: 'skipped' })).map((r) => r.id)).toEqual(['r-x-2']);
    // A skipped slot is never enqueued afterwards.
    expect((await c.runs.enqueue(run('r-x-2', { routine: 'x' }))).created).toBe(false);
  });

  it('knows the open runs of a routine and forgets the ended ones', async () => {
    c = await setup();
    await c.runs.enqueue(run('r-y-1', { routine: 'y' }));
    await c.runs.enqueue(run('r-y-2', { routine: 'y', delayMs: 60_000 }));
    expect((await c.runs.openRunsOfRoutine('y')).map((r) => r.id).sort()).toEqual(['r-y-1', 'r-y-2']);
    await finishNext(c);
    expect((await c.runs.openRunsOfRoutine('y')).map((r) => r.id)).toEqual(['r-y-2']);
    const redis = testRedisClient();
    expect(await redis.zcard(c.keys.routineOpen('y'))).toBe(1);
    redis.disconnect();
  });

  it('cancels a running run by telling its worker over pub/sub and noting it on the job', async () => {
    c = await setup();
    await c.runs.enqueue(run('a-1'));
    const worker = new Worker(c.keys.bullQueueName('q'), null, {
      connection: c.connections.open('blocking', 'holder'),
      prefix: c.keys.bullPrefix,
    });
    await worker.getNextJob('tok');
    const sub = testRedisClient();
    const heard = new Promise<string>((resolve) => sub.on('message', (_ch: string, m: string) => resolve(m)));
    await sub.subscribe(cancelChannel(c.keys));
    const result = await c.runs.cancel('a-1', 'replaced by r-2');
    expect(result).toMatchObject({ outcome: 'cancel-requested', run: { status: 'running' } });
    expect(decodeCancel(await heard)).toEqual({ id: 'a-1', queue: 'q', reason: 'replaced by r-2' });
    expect((await c.bull.get('q').getJob('a-1'))?.data.cancel).toMatchObject({ reason: 'replaced by r-2' });
    sub.disconnect();
    await worker.close(true);
  });

  it('waits for the end of a run on the queue’s events, and gives up after the timeout', async () => {
    c = await setup();
    await c.runs.enqueue(run('a-1'));
    const timedOut = await c.runs.waitForTerminal('a-1', 150);
    expect(timedOut).toMatchObject({ timedOut: true, run: { status: 'queued' } });
    const waiting = c.runs.waitForTerminal('a-1', 10_000);
    await finishNext(c);
    expect(await waiting).toMatchObject({ timedOut: false, run: { status: 'succeeded', result: { ok: true } } });
    expect(await c.runs.waitForTerminal('nope', 1_000)).toEqual({ run: null, timedOut: false });
  });

  it('purges parked runs one at a time or all at once', async () => {
    c = await setup([{ name: 'q', maxAttempts: 1 }]);
    await c.runs.enqueueMany([run('a-1'), run('a-2'), run('a-3')]);
    for (let i = 0; i < 3; i++) await finishNext(c, 'boom');
    expect(await c.runs.parkedCount('q')).toBe(3);
    expect(await c.runs.purgeParked('q', 'a-1')).toBe(1);
    expect(await c.runs.purgeParked('q', 'a-1')).toBe(0);
    expect(await c.runs.get('a-1')).toBeNull();
    expect(await c.runs.purgeParked('q')).toBe(2);
    expect(await c.runs.listParked('q')).toEqual([]);
  });

  it('refuses to replay a run that is not parked', async () => {
    c = await setup();
    await c.runs.enqueue(run('a-1'));
    await expect(c.runs.replayParked('q', 'a-1')).rejects.toThrow(
      'run "a-1" is not parked in queue "q" (it is queued)',
    );
    await expect(c.runs.replayParked('q', 'zzz')).rejects.toThrow('(no such run)');
  });
});

describe('QueueRegistry', () => {
  let c: Ctx;
  afterEach(async () => c?.close());

  it('applies file queues (removing file queues no longer listed) and keeps API-made ones', async () => {
    c = await setup([{ name: 'a' }, { name: 'b' }]);
    await c.registry.put([{ name: 'api-made' }], { origin: 'api' });
    expect(await c.registry.put([{ name: 'a', concurrency: 3 }])).toEqual(['b']);
    expect((await c.registry.list()).map((r) => [r.def.name, r.origin])).toEqual([
      ['a', 'file'],
      ['api-made', 'api'],
    ]);
    expect((await c.registry.get('a'))?.concurrency).toBe(3);
    await expect(c.registry.put([{ name: 'Bad Name' }])).rejects.toThrow(
      /invalid queue policy: queues\[Bad Name\]\.name/,
    );
  });
});

describe('WorkerCatalog', () => {
  it('lists live workers and forgets those whose heartbeat expired', async () => {
    const stores = testStores('cat');
    const { catalog } = stores;
    const entry = {
      instanceId: 'w-1',
      nonce: 'n1',
      version: '1.0.0',
      pid: 1,
      hostname: 'h',
      queues: [{ name: 'q', concurrency: 5 }],
      jobTypes: ['noop'],
      startedAt: 1,
      heartbeatAt: 2,
      draining: false,
    };
    await catalog.publish(entry, 60_000);
    await catalog.publish({ ...entry, instanceId: 'w-2' }, 1);
    // The 1 ms entry expires in Redis; list() then drops it from the index.
    await waitFor('the short heartbeat to expire', async () => (await catalog.list()).length === 1);
    expect((await catalog.list()).map((w) => w.instanceId)).toEqual(['w-1']);
    await catalog.remove('w-1');
    expect(await catalog.list()).toEqual([]);
    await stores.close();
  });

  it('answers the entry a publish replaced, so a second process under the same instance id shows', async () => {
    const stores = testStores('cat');
    const { catalog } = stores;
    const entry = {
      instanceId: 'w-1',
      nonce: 'n1',
      version: '1.0.0',
      pid: 1,
      hostname: 'h',
      queues: [],
      jobTypes: [],
      startedAt: 1,
      heartbeatAt: 2,
      draining: false,
    };
    try {
      expect(await catalog.publish(entry, 60_000)).toBeUndefined();
      expect(await catalog.publish({ ...entry, nonce: 'n2', pid: 2 }, 60_000)).toEqual(entry);
      expect(await catalog.publish({ ...entry, heartbeatAt: 3 }, 60_000)).toMatchObject({ nonce: 'n2', pid: 2 });
      expect((await catalog.list()).map((w) => w.nonce)).toEqual(['n1']);
    } finally {
      await stores.close();
    }
  });
});
