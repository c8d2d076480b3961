import type { JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { RedisMonitor, testStores } from '@drover/testing';
import { ADDS_PER_CALL, AddsTogether, type JobToAdd } from './adds-together';

type Stores = ReturnType<typeof testStores>;

/** Everything Redis holds under a queue's keys, by key suffix; stream entries without their ids (times). */
async function dump(redis: Redis, queue: Queue): Promise<Record<string, unknown>> {
  const base = queue.toKey('');
  const out: Record<string, unknown> = {};
  for (const key of (await redis.keys(`${base}*`)).sort()) {
    const type = await redis.type(key);
    const name = key.slice(base.length);
    if (type === 'hash') out[name] = await redis.call('HGETALL', key);
    else if (type === 'list') out[name] = await redis.lrange(key, 0, -1);
    else if (type === 'zset') out[name] = await redis.call('ZRANGE', key, '0', '-1', 'WITHSCORES');
    else if (type === 'string') out[name] = await redis.get(key);
    else if (type === 'stream') out[name] = (await redis.xrange(key, '-', '+')).map(([, fields]) => fields);
    else out[name] = type;
  }
  return out;
}

/**
 * Script calls Redis ran on `queue`'s keys since the last ask, as Redis saw them (MONITOR; other
 * tests may share the server, so only calls naming this queue's keys count).
 */
async function scriptCalls(monitor: RedisMonitor, queue: Queue): Promise<number> {
  const base = queue.toKey('');
  return (await monitor.commands()).filter(
    (c) => (c[0] === 'evalsha' || c[0] === 'eval') && c.some((a) => a.startsWith(base)),
  ).length;
}

const T = 1_767_225_600_000;
/** What Drover stores for its runs, as `Queue.add` options: each kind of BullMQ add script. */
const CASES: [string, JobsOptions][] = [
  ['a plain job', { attempts: 3 }],
  ['a plain job with its own timestamp', { timestamp: T, attempts: 5 }],
  ['a delayed job', { timestamp: T, delay: 5_000 }],
  ['a prioritized job', { priority: 7, attempts: 2 }],
];

const job = (id: string, opts: JobsOptions = {}, data: unknown = { payload: { id } }): JobToAdd => ({
  name: 'send',
  data,
  opts: { ...opts, jobId: id },
});

describe('AddsTogether: BullMQ’s own adds, one script call per queue and turn (real redis-server, real BullMQ)', () => {
  let s: Stores;
  let adds: AddsTogether;
  beforeEach(() => {
    s = testStores('adds-together');
    adds = new AddsTogether(s.connections.command);
  });
  afterEach(async () => {
    await s.close();
  });
  const redis = () => s.connections.command as Redis;

  it.each(CASES)('writes %s byte for byte as Queue.add does, alone, guarded, or with others', async (_, opts) => {
    const data = { payload: { n: 1, s: 'é' }, createdBy: 'bench' };
    const raw = s.bull.get('raw');
    const together = s.bull.get('together');
    const guarded = s.bull.get('guarded');
    const ids = ['k-1', 'k-2', 'k-3'];
    // Both within one millisecond as far as the jobs are concerned: BullMQ stamps `Date.now()`.
    const spy = jest.spyOn(Date, 'now').mockReturnValue(Date.now());
    try {
      // One at a time: each add sees what the one before wrote (the id counter, the marker, the stream).
      for (const id of ids) await raw.add('send', data, { ...opts, jobId: id });
      // In one turn: one script call adds all three, in order.
      expect(await Promise.all(ids.map((id) => adds.add(together, job(id, opts, data))))).toEqual([true, true, true]);
      expect(await Promise.all(ids.map((id) => adds.add(guarded, job(id, opts, data), ['absent'])))).toEqual([
        true,
        true,
        true,
      ]);
    } finally {
      spy.mockRestore();
    }
    const a = await dump(redis(), raw);
    expect(Object.keys(a)).toContain('k-3');
    expect(await dump(redis(), together)).toEqual(a);
    expect(await dump(redis(), guarded)).toEqual(a);
  });

  it('adds a turn’s jobs in order, at most ADDS_PER_CALL per script call, and answers each', async () => {
    const q = s.bull.get('q');
    await adds.add(q, job('warm'));
    const n = 3 * ADDS_PER_CALL + 5;
    const ids = Array.from({ length: n }, (_, i) => `j-${String(i).padStart(3, '0')}`);
    const monitor = await RedisMonitor.start(undefined, { scripted: false });
    let answers: boolean[];
    try {
      answers = await Promise.all(ids.map((id) => adds.add(q, job(id))));
      expect(await scriptCalls(monitor, q)).toBe(Math.ceil(n / ADDS_PER_CALL));
    } finally {
      monitor.stop();
    }
    expect(answers).toEqual(ids.map(() => true));
    // BullMQ's wait list takes new jobs at its head: the oldest last.
    expect(await redis().lrange(q.toKey('wait'), 0, -1)).toEqual([...ids].reverse().concat('warm'));
    const first = await q.getJob('j-000');
    expect(first?.data).toEqual({ payload: { id: 'j-000' } });
  });

  it('sends each queue’s jobs on their own, in the same turn', async () => {
    const [a, b] = [s.bull.get('a'), s.bull.get('b')];
    const answers = await Promise.all([
      adds.add(a, job('a-1')),
      adds.add(b, job('b-1')),
      adds.add(a, job('a-2')),
      adds.add(b, job('b-2', { delay: 60_000 })),
    ]);
    expect(answers).toEqual([true, true, true, true]);
    expect(await a.getJobCounts('waiting', 'delayed')).toEqual({ waiting: 2, delayed: 0 });
    expect(await b.getJobCounts('waiting', 'delayed')).toEqual({ waiting: 1, delayed: 1 });
  });

  it('writes nothing for a job while any of its guard keys exists, and says so', async () => {
    const q = s.bull.get('q');
    await q.add('send', { n: 0 }, { jobId: 'first' });
    const before = await dump(redis(), q);
    const record = s.keys.runRecord('r-1');
    await redis().set(record, '{}');
    expect(await adds.add(q, job('r-1'), ['absent', record])).toBe(false);
    // The job itself as a guard key: BullMQ would answer its id; the guard tells the caller it existed.
    expect(await adds.add(q, job('first'), [q.toKey('first')])).toBe(false);
    expect(await dump(redis(), q)).toEqual(before);
  });

  it('guards each job by what the jobs before it in the same call wrote', async () => {
    const q = s.bull.get('q');
    const answers = await Promise.all([
      adds.add(q, job('same', {}, { payload: 1 }), [q.toKey('same')]),
      adds.add(q, job('other'), [q.toKey('other')]),
      adds.add(q, job('same', {}, { payload: 2 }), [q.toKey('same')]),
    ]);
    expect(answers).toEqual([true, true, false]);
    expect((await q.getJob('same'))?.data).toEqual({ payload: 1 });
    expect(await q.getJobCounts('waiting')).toEqual({ waiting: 2 });
  });

  it('fails every add of a call Redis refuses, and none of them was written', async () => {
    const q = s.bull.get('q');
    await adds.add(q, job('kept'));
    const before = await dump(redis(), q);
    // The id counter as a hash: BullMQ's add fails at its first write (INCR), for every job.
    const counter = q.toKey('id');
    const count = await redis().get(counter);
    await redis().del(counter);
    await redis().hset(counter, 'not', 'a counter');
    const results = await Promise.allSettled([adds.add(q, job('x-1')), adds.add(q, job('x-2'))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE|wrong kind/i);
    await redis().del(counter);
    await redis().set(counter, count!);
    expect(await dump(redis(), q)).toEqual(before);
    // The next turn's adds are not held back by the failed one.
    expect(await adds.add(q, job('x-3'))).toBe(true);
  });

  it('fails every add of a call its connection loses before sending it, and writes none of them', async () => {
    const q = s.bull.get('q');
    const own = redis().duplicate();
    await own.ping();
    const lost = new AddsTogether(own);
    const pending = [lost.add(q, job('c-1')), lost.add(q, job('c-2'), ['absent'])];
    // Gone within the same turn: the call, sent at its end, has no connection left.
    own.disconnect();
    const results = await Promise.allSettled(pending);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/closed/i);
    expect(await q.getJobCounts('waiting')).toEqual({ waiting: 0 });
  });

  it('fails only the job whose add fails in Redis: the jobs before and after it are added and say so', async () => {
    const q = s.bull.get('q');
    // A key of the wrong kind where BullMQ finds the job: its duplicate check reads it as a hash.
    await redis().set(q.toKey('clash'), 'not a job');
    const results = await Promise.allSettled([
      adds.add(q, job('ok-1')),
      adds.add(q, job('clash')),
      adds.add(q, job('ok-2')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE|wrong kind/i);
    expect(await redis().lrange(q.toKey('wait'), 0, -1)).toEqual(['ok-2', 'ok-1']);
  });

  it('keeps a queue’s guarded and unguarded jobs of one turn in call order', async () => {
    const q = s.bull.get('q');
    const answers = await Promise.all([
      adds.add(q, job('p-1')),
      adds.add(q, job('g-1'), [q.toKey('g-1')]),
      adds.add(q, job('p-2')),
      adds.add(q, job('g-2'), ['absent', 'absent-too']),
      adds.add(q, job('p-3')),
    ]);
    expect(answers).toEqual([true, true, true, true, true]);
    expect((await redis().lrange(q.toKey('wait'), 0, -1)).reverse()).toEqual(['p-1', 'g-1', 'p-2', 'g-2', 'p-3']);
  });

  it('rejects a job BullMQ’s own option checks refuse, and adds the others of the turn', async () => {
    const q = s.bull.get('q');
    const results = await Promise.allSettled([
      adds.add(q, job('ok-1')),
      adds.add(q, job('bad', { priority: 1.5 })),
      adds.add(q, job('ok-2')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await q.getJob('bad')).toBeUndefined();
    expect(await q.getJobCounts('waiting')).toEqual({ waiting: 2 });
  });

  it('splits a turn whose data is large into several calls', async () => {
    const q = s.bull.get('q');
    await adds.add(q, job('warm'));
    const big = 'x'.repeat(400_000);
    const monitor = await RedisMonitor.start(undefined, { scripted: false });
    try {
      const answers = await Promise.all(['l-1', 'l-2', 'l-3', 'l-4'].map((id) => adds.add(q, job(id, {}, { big }))));
      expect(answers).toEqual([true, true, true, true]);
      // About 1 MB of data per call: three jobs in the first, the fourth in its own.
      expect(await scriptCalls(monitor, q)).toBe(2);
    } finally {
      monitor.stop();
    }
    expect((await q.getJob('l-4'))?.data).toEqual({ big });
  });
});
