import type { JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { testStores } from '@drover/testing';
import { addGuarded, guardedCommand } from './guarded-add';

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

const T = 1_767_225_600_000;
/** What Drover stores for its runs, as `Queue.add` options: each kind of BullMQ add script. */
const CASES: [string, JobsOptions][] = [
  ['a plain job', { attempts: 3 }],
  ['a plain job with its own timestamp', { timestamp: T, attempts: 5 }],
  ['a delayed job', { timestamp: T, delay: 5_000 }],
  ['a prioritized job', { priority: 7, attempts: 2 }],
];

describe('addGuarded: BullMQ’s own add behind an existence guard, in one script (real redis-server, real BullMQ)', () => {
  let s: Stores;
  beforeEach(() => {
    s = testStores('guarded-add');
  });
  afterEach(async () => {
    await s.close();
  });
  const redis = () => s.connections.command as Redis;

  it.each(CASES)('writes %s byte for byte as Queue.add does', async (_, opts) => {
    const data = { payload: { n: 1, s: 'é' }, createdBy: 'bench' };
    const raw = s.bull.get('raw');
    const guarded = s.bull.get('guarded');
    // Two jobs each, so the second add sees what the first wrote (the id counter, the marker, the stream).
    for (const id of ['k-1', 'k-2']) {
      // Both within one millisecond as far as the jobs are concerned: BullMQ stamps `Date.now()`.
      const now = Date.now();
      const spy = jest.spyOn(Date, 'now').mockReturnValue(now);
      try {
        await raw.add('send', data, { ...opts, jobId: id });
        expect(
          await addGuarded(guarded, redis(), { name: 'send', data, opts: { ...opts, jobId: id } }, ['absent']),
        ).toBe(true);
      } finally {
        spy.mockRestore();
      }
    }
    const [a, b] = [await dump(redis(), raw), await dump(redis(), guarded)];
    expect(Object.keys(a)).toContain('k-1');
    expect(b).toEqual(a);
  });

  it('writes nothing while any guard key exists, and says so', async () => {
    const q = s.bull.get('q');
    await q.add('send', { n: 0 }, { jobId: 'first' });
    const before = await dump(redis(), q);
    const record = s.keys.runRecord('r-1');
    await redis().set(record, '{}');
    expect(await addGuarded(q, redis(), { name: 'send', data: {}, opts: { jobId: 'r-1' } }, ['absent', record])).toBe(
      false,
    );
    // The job itself as a guard key: BullMQ would answer its id; the guard tells the caller it existed.
    expect(
      await addGuarded(q, redis(), { name: 'other', data: {}, opts: { jobId: 'first' } }, [q.toKey('first')]),
    ).toBe(false);
    expect(await dump(redis(), q)).toEqual(before);
  });

  it('defines each guarded command once per connection and answers the same one after', async () => {
    const define = jest.spyOn(redis(), 'defineCommand');
    const first = guardedCommand(redis(), 'addStandardJob:6.7.0');
    expect(guardedCommand(redis(), 'addStandardJob:6.7.0')).toBe(first);
    expect(define).toHaveBeenCalledTimes(1);
    expect(first.keys).toBe(9);
    // Another script, and the same script on another connection, are commands of their own.
    expect(guardedCommand(redis(), 'addDelayedJob:6.7.0')).not.toBe(first);
    const other = testStores('guarded-add-other');
    try {
      const theirs = guardedCommand(other.connections.command, 'addStandardJob:6.7.0');
      expect(theirs).not.toBe(first);
      // Bound to its own connection: it runs there (a guard hit answers a table).
      await other.connections.command.set('guard-hit', '1');
      const bullKeys = Array.from({ length: 9 }, (_, i) => `absent-${i}`);
      expect(await theirs.run([10, ...bullKeys, 'guard-hit'])).toEqual([0]);
    } finally {
      await other.close();
    }
    expect(() => guardedCommand(redis(), 'noSuchScript:6.7.0')).toThrow(/no script/);
  });
});
