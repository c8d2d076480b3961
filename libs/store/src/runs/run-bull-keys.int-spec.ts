import { Worker } from 'bullmq';
import { testStores, waitFor } from '@drover/testing';
import type { NewRun } from './run.store';

type Stores = ReturnType<typeof testStores>;

/** BullMQ 6's own per-queue keys (`<prefix>:<queue>:<suffix>`), whether or not a test made them. */
const BULLMQ_SUFFIXES = [
  'events',
  'meta',
  'id',
  'wait',
  'paused',
  'active',
  'prioritized',
  'delayed',
  'completed',
  'failed',
  'stalled',
  'stalled-check',
  'waiting-children',
  'marker',
  'limiter',
  'pc',
  'de',
  'repeat',
  'metrics',
  'metrics:completed',
  'metrics:completed:data',
  'metrics:failed',
];

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

describe('RunStore: ids that name BullMQ keys are no runs (real redis-server, real BullMQ)', () => {
  let c: Stores;
  let worker: Worker | undefined;

  afterEach(async () => {
    await worker?.close();
    await c?.close();
  });

  it('answers "no such run" for every key BullMQ keeps next to the jobs, never an error', async () => {
    c = testStores('bull-keys');
    await c.registry.put([{ name: 'q', maxAttempts: 1 }]);
    // Every kind of BullMQ state: finished, parked, logged, delayed, prioritized, deduplicated,
    // rate-limited, with metrics and a stalled-jobs check, and waiting runs behind them.
    await c.runs.enqueueMany([run('ok-1'), run('ok-2'), run('bad-1', { payload: { fail: true } })]);
    const queueName = c.keys.bullQueueName('q');
    worker = new Worker(
      queueName,
      async (job) => {
        await job.log('a line');
        if ((job.data as { payload?: { fail?: boolean } }).payload?.fail) throw new Error('boom');
        return { ok: true };
      },
      {
        connection: c.connections.open('blocking', 'bull-keys-worker'),
        prefix: c.keys.bullPrefix,
        metrics: { maxDataPoints: 10 },
      },
    );
    const queue = c.bull.get('q');
    await waitFor('the three runs to finish', async () => {
      const n = await queue.getJobCounts('completed', 'failed');
      return n.completed === 2 && n.failed === 1;
    });
    await worker.rateLimit(60_000);
    await worker.close();
    worker = undefined;
    await c.runs.enqueueMany([
      run('later-1', { delayMs: 60_000 }),
      run('manual-1', { source: 'manual', priority: 5 }),
      run('dedup-1', { dedup: { id: 'one-per-key', ttlMs: 60_000 } }),
      run('waiting-1'),
    ]);
    await queue.upsertJobScheduler('sched', { every: 3_600_000 }, { name: 'noop', data: {} });

    const prefix = `${c.keys.bullPrefix}:${queueName}:`;
    const jobs = new Set(
      (await queue.getJobs(['completed', 'failed', 'delayed', 'prioritized', 'waiting', 'active'])).map((j) => j.id!),
    );
    const found = new Set<string>();
    for (const key of await c.connections.command.keys(`${prefix}*`)) found.add(key.slice(prefix.length));
    // What the setup made: each of these keys exists, so the test covers them.
    for (const made of ['events', 'meta', 'id', 'marker', 'limiter', 'stalled-check', 'pc', 'repeat', 'ok-1:logs']) {
      expect(found).toContain(made);
    }
    expect([...found].some((k) => k.startsWith('de:'))).toBe(true);
    expect([...found].some((k) => k.startsWith('metrics:'))).toBe(true);

    const notRuns = [...new Set([...BULLMQ_SUFFIXES, ...found])].filter((id) => !jobs.has(id)).sort();
    for (const id of notRuns) {
      await expect(c.runs.get(id)).resolves.toBeNull();
      await expect(c.runs.get(id, 'q')).resolves.toBeNull();
      await expect(c.runs.cancel(id)).resolves.toEqual({ outcome: 'not-found', run: null });
      await expect(c.runs.getParked(id)).resolves.toBeNull();
      await expect(c.runs.getParked(id, 'q')).resolves.toBeNull();
      await expect(c.runs.waitForTerminal(id, 1_000)).resolves.toEqual({ run: null, timedOut: false });
      await expect(c.runs.replayParked('q', id)).rejects.toThrow(`run "${id}" is not parked in queue "q"`);
      await expect(c.runs.purgeParked('q', id)).resolves.toBe(0);
    }
    // Nothing above touched BullMQ's keys, and the real runs still read.
    for (const suffix of found) expect(await c.connections.command.exists(`${prefix}${suffix}`)).toBe(1);
    expect(await c.runs.get('ok-1')).toMatchObject({ status: 'succeeded' });
    expect(await c.runs.get('bad-1')).toMatchObject({ status: 'parked' });
    expect(await c.runs.getParked('bad-1')).toMatchObject({ id: 'bad-1' });
  });
});
