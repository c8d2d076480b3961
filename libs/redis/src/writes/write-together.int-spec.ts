import type { Redis } from 'ioredis';
import { testRedisClient, uniquePrefix } from '@drover/testing';
import { writeTogether } from './write-together';

/** Counts the socket's system-call-level writes: one `_write` per lone chunk, one `_writev` per batch. */
function countWrites(redis: Redis): { writes: number; batches: number; restore(): void } {
  const stream = redis.stream as unknown as Record<'_write' | '_writev', (...a: unknown[]) => void>;
  const [write, writev] = [stream._write, stream._writev];
  const counts = {
    writes: 0,
    batches: 0,
    restore: () => Object.assign(stream, { _write: write, _writev: writev }),
  };
  stream._write = function (this: unknown, ...a: unknown[]) {
    counts.writes++;
    return write.apply(this, a);
  };
  stream._writev = function (this: unknown, ...a: unknown[]) {
    counts.batches++;
    return writev.apply(this, a);
  };
  return counts;
}

describe('writeTogether (the commands of one tick in one write; real redis-server)', () => {
  let redis: Redis;
  beforeEach(async () => {
    redis = testRedisClient();
    await redis.ping();
  });
  afterEach(() => redis.disconnect());

  it('sends the commands started in one tick in one write, each answered in order', async () => {
    const key = `${uniquePrefix('together')}:n`;
    const counts = countWrites(redis);
    try {
      const replies: Promise<number>[] = [];
      for (let i = 0; i < 20; i++) {
        writeTogether(redis);
        replies.push(redis.incr(key));
      }
      expect(await Promise.all(replies)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(counts).toMatchObject({ writes: 0, batches: 1 });
    } finally {
      counts.restore();
    }
    expect(redis.stream.writableCorked).toBe(0);
  });

  it('leaves a lone command at the end of its tick, and every later tick writes as before', async () => {
    const key = `${uniquePrefix('together')}:lone`;
    const counts = countWrites(redis);
    try {
      writeTogether(redis);
      expect(await redis.set(key, 'v')).toBe('OK');
      // Without it, each command is its own write.
      await Promise.all([redis.get(key), redis.get(key)]);
      expect(counts.writes + counts.batches).toBe(3);
    } finally {
      counts.restore();
    }
    expect(redis.stream.writableCorked).toBe(0);
  });
});
