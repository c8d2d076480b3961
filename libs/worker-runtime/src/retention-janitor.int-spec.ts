import { Queue, Worker } from 'bullmq';
import pino from 'pino';
import { testRedisClient, testRedisUrl, uniquePrefix } from '@drover/testing';
import { Redis } from 'ioredis';
import { RetentionJanitor } from './retention-janitor';

describe('RetentionJanitor against a real redis-server', () => {
  it('removes completed runs older than the age, on one worker at a time', async () => {
    const prefix = uniquePrefix('ret');
    const connection = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    const queue = new Queue('q', { connection, prefix });
    const redis = testRedisClient();
    const worker = new Worker('q', null, {
      connection: new Redis(testRedisUrl(), { maxRetriesPerRequest: null }),
      prefix,
    });
    try {
      await queue.addBulk([1, 2, 3].map((n) => ({ name: 'noop', data: {}, opts: { jobId: `a-${n}` } })));
      await worker.waitUntilReady();
      for (let i = 0; i < 3; i++) {
        const job = await worker.getNextJob(`tok-${i}`);
        await job!.moveToCompleted('ok', `tok-${i}`, false);
      }
      expect(await queue.getCompletedCount()).toBe(3);
      const log = pino({ level: 'silent' });
      const lock = `${prefix}:q:drover:retention-sweep`;
      const keepsEverything = new RetentionJanitor(queue, redis, `${lock}-a`, 3_600_000, 'w-1', log);
      expect(await keepsEverything.sweep()).toBe(0);
      const janitor = new RetentionJanitor(queue, redis, lock, 1, 'w-1', log);
      const other = new RetentionJanitor(queue, redis, lock, 1, 'w-2', log);
      expect(janitor.everyMs).toBe(10_000);
      expect(await janitor.sweep()).toBe(3);
      expect(await queue.getCompletedCount()).toBe(0);
      expect(await other.sweep()).toBe(0); // the sweep lock is held for the interval
      expect(await redis.get(lock)).toBe('w-1');
    } finally {
      await worker.close(true);
      await queue.close();
      connection.disconnect();
      redis.disconnect();
    }
  });
});
