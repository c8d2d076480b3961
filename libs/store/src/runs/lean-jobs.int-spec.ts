import { Worker } from 'bullmq';
import { DroverKeys, RedisConnections, SystemClock, withDroverScripts } from '@drover/redis';
import { testRedisUrl, uniquePrefix } from '@drover/testing';
import { createStores, type Stores } from '../create-stores';
import { INLINE_CAP_BYTES, readLeanJobs } from './lean-jobs';
import type { NewRun } from './new-run';

const KiB = 1024;
const big = (n: number) => 'x'.repeat(n);
const run = (id: string, over: Partial<NewRun> = {}): NewRun => ({
  id,
  routine: null,
  jobType: 'noop',
  queue: 'q',
  source: 'api',
  scheduledFor: null,
  payload: { small: true },
  ...over,
});

// Both key layouts: plain queue names, and the hash-tagged ones Drover uses on Redis Cluster.
describe.each([false, true])('lean job reads against a real redis-server (cluster keys: %s)', (cluster) => {
  let connections: RedisConnections;
  let keys: DroverKeys;
  let stores: Stores;

  beforeEach(async () => {
    connections = new RedisConnections({ kind: 'url', url: testRedisUrl(), tls: false }, 'lean');
    keys = new DroverKeys(uniquePrefix('lean'), cluster);
    stores = createStores(connections, keys, new SystemClock());
    await stores.registry.put([{ name: 'q' }]);
  });

  afterEach(async () => {
    await stores.close();
    await connections.closeAll();
  });

  /** Takes the next job like a worker would, then completes it with `value` or fails it with `stack`. */
  async function finishNext(end: { value: unknown } | { stack: string }): Promise<string> {
    const worker = new Worker(keys.bullQueueName('q'), null, {
      connection: connections.open('blocking', 'finisher'),
      prefix: keys.bullPrefix,
    });
    const job = await worker.getNextJob('tok');
    if (!job) throw new Error('no job to finish');
    if ('value' in end) await job.moveToCompleted(end.value, 'tok');
    else {
      const err = new Error('boom');
      err.stack = end.stack;
      await job.moveToFailed(err, 'tok');
    }
    await worker.close();
    return job.id!;
  }

  it('answers small jobs whole and keeps large payloads, results and attempt logs in Redis', async () => {
    const { runs, bull } = stores;
    // Completed with a 100 KiB result; parked with a 40 KiB stack; a 200 KiB payload left waiting; a small one.
    await runs.enqueue(run('ran', { maxAttempts: 2 }));
    await finishNext({ stack: 'Error: once' });
    await finishNext({ value: { ok: 1 } });
    await runs.enqueue(run('done', { payload: { n: 1 } }));
    await finishNext({ value: { blob: big(100 * KiB) } });
    await runs.enqueue(run('parked', { maxAttempts: 1 }));
    await finishNext({ stack: `Error: boom\n${big(40 * KiB)}` });
    await runs.enqueue(run('retry', { maxAttempts: 3 }));
    await finishNext({ stack: `Error: first\n${big(10 * KiB)}` });
    await finishNext({ stack: `Error: second\n${big(10 * KiB)}` });
    await runs.enqueue(run('large', { payload: { blob: big(200 * KiB), n: 12345678901234 }, createdBy: 'alice' }));
    await runs.enqueue(run('small', { payload: { hello: 'world', list: [1, 2], empty: [] } }));

    const ids = ['done', 'parked', 'retry', 'large', 'small', 'missing', 'ran'];
    // The script's whole reply, as it crosses the wire: a few KiB, whatever the jobs hold.
    const reply = await withDroverScripts(connections.command).readLeanJobs(
      ids.length,
      ...ids.map((id) => bull.keys.bullJob('q', id)),
      INLINE_CAP_BYTES,
    );
    expect(JSON.stringify(reply).length).toBeLessThan(3 * INLINE_CAP_BYTES);
    expect(reply[5]).toEqual([[], []]);

    const [done, parked, retry, large, small, missing, ran] = await readLeanJobs(connections.command, bull, 'q', ids);
    expect(missing).toBeUndefined();

    // A small job decodes as BullMQ's own read does (same fields, same values).
    const asJson = (j: { toJSON(): unknown }) => JSON.parse(JSON.stringify(j.toJSON())) as unknown;
    for (const [lean, id] of [
      [small, 'small'],
      [ran, 'ran'],
    ] as const) {
      expect(lean!.omitted).toEqual([]);
      expect(asJson(lean!.job)).toEqual(asJson((await bull.get('q').getJob(id))!));
    }
    expect(ran!.job.attemptsStarted).toBe(2);
    expect(ran!.job.returnvalue).toEqual({ ok: 1 });
    expect(small!.job.data.payload).toEqual({ hello: 'world', list: [1, 2], empty: [] });

    // A large payload is dropped from the record, the rest of the record kept.
    expect(large!.job.data.payload).toBeUndefined();
    expect(large!.job.data).toEqual({ createdBy: 'alice' });
    expect(large!.job.name).toBe('noop');
    expect(large!.omitted).toEqual([{ field: 'payload', bytes: expect.any(Number) }]);
    expect(large!.omitted[0]!.bytes).toBeGreaterThan(200 * KiB);

    // A large result is left out; the small payload stays.
    expect(done!.job.returnvalue).toBeFalsy();
    expect(done!.job.data.payload).toEqual({ n: 1 });
    expect(done!.omitted).toEqual([{ field: 'result', bytes: expect.any(Number) }]);
    expect(done!.omitted[0]!.bytes).toBeGreaterThan(100 * KiB);
    expect(done!.job.finishedOn).toBe((await bull.get('q').getJob('done'))!.finishedOn);

    // An attempt log over the cap: the newest attempt kept (cut when alone too long), older ones dropped.
    expect(parked!.job.stacktrace).toHaveLength(1);
    expect(parked!.job.stacktrace![0]!.startsWith('Error: boom')).toBe(true);
    expect(parked!.job.stacktrace![0]!.length).toBeLessThanOrEqual(INLINE_CAP_BYTES);
    expect(parked!.job.failedReason).toBe('boom');
    expect(parked!.omitted).toEqual([{ field: 'errors', bytes: expect.any(Number) }]);
    expect(retry!.job.stacktrace).toHaveLength(1);
    expect(retry!.job.stacktrace![0]!.startsWith('Error: second')).toBe(true);
    expect(retry!.job.attemptsMade).toBe(2);
  });

  it('reads a hundred 200 KiB payloads as a few KiB each', async () => {
    const { runs, bull } = stores;
    await bull.get('q').pause();
    const payload = { blob: big(200 * KiB) };
    const ids = Array.from({ length: 100 }, (_, i) => `r-${i}`);
    for (const id of ids) await runs.enqueue(run(id, { payload }));
    const reply = await withDroverScripts(connections.command).readLeanJobs(
      ids.length,
      ...ids.map((id) => bull.keys.bullJob('q', id)),
      INLINE_CAP_BYTES,
    );
    expect(JSON.stringify(reply).length).toBeLessThan(100 * 2 * KiB);
    const views = await runs.listRecent({ limit: 100 });
    expect(views).toHaveLength(100);
    for (const v of views) {
      expect(v.payload).toBeUndefined();
      expect(v.omitted).toEqual([{ field: 'payload', bytes: expect.any(Number) }]);
    }
    // Read alone, a run is whole.
    expect((await runs.get('r-7'))!.payload).toEqual(payload);
  });

  it("lists a plain BullMQ producer's jobs as bullmq runs, a large data left out like a payload", async () => {
    const { runs, bull } = stores;
    await bull.get('q').pause();
    const small = await bull.get('q').add('welcome', { to: 'ada@example.com' });
    const large = await bull.get('q').add('digest', { blob: big(200 * KiB) });
    const views = await runs.listRecent({ queue: 'q', limit: 10 });
    expect(views.find((v) => v.id === small.id)).toMatchObject({
      source: 'bullmq',
      payload: { to: 'ada@example.com' },
    });
    const listed = views.find((v) => v.id === large.id)!;
    expect(listed).toMatchObject({ source: 'bullmq', jobType: 'digest', omitted: [{ field: 'payload' }] });
    expect(listed.payload).toBeUndefined();
    expect((await runs.get(large.id!))!.payload).toEqual({ blob: big(200 * KiB) });
  });

  it("lists a flow's parent with 999 children without their list (read alone, it has them all)", async () => {
    const { runs } = stores;
    const child = (i: number): NewRun => run(`a-flow-child-${String(i).padStart(4, '0')}`, { freshId: true });
    const children = Array.from({ length: 999 }, (_, i) => ({ run: child(i) }));
    await runs.flows.add({ run: run('a-flow-parent', { freshId: true, payload: { month: '2026-11' } }), children });
    const listed = (await runs.listRecent({ queue: 'q', limit: 2000 })).find((v) => v.id === 'a-flow-parent')!;
    // Still Drover's run (its source and payload kept), its children's list left out and said so.
    expect(listed).toMatchObject({ source: 'api', payload: { month: '2026-11' }, waitingForChildren: true });
    expect(listed.flow).toBeUndefined();
    expect(listed.omitted).toEqual([{ field: 'children', bytes: expect.any(Number) }]);
    expect(listed.omitted![0]!.bytes).toBeGreaterThan(16 * KiB);
    expect((await runs.get('a-flow-parent'))!.flow!.children).toHaveLength(999);
  }, 30_000);
});
