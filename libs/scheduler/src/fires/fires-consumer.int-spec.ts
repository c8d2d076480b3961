import pino from 'pino';
import { ReadinessRegistry } from '@drover/platform';
import { DroverKeys, NotReplicatedError, RedisConnections, SystemClock } from '@drover/redis';
import { FIRE_RETRY } from '@drover/store';
import { testRedisUrl, uniquePrefix, waitFor } from '@drover/testing';
import { DEFAULT_SCHEDULER_OPTIONS } from '../scheduler-options';
import type { Dispatcher } from './dispatcher.service';
import { FiresConsumer } from './fires-consumer.service';
import { FiresQueue } from './fires-queue.provider';

describe('FiresConsumer: a Job Scheduler stored without job options (real Redis, real BullMQ)', () => {
  let conns: RedisConnections;
  let keys: DroverKeys;
  let fires: FiresQueue;
  let consumer: FiresConsumer | undefined;

  beforeEach(() => {
    conns = new RedisConnections({ kind: 'url', url: testRedisUrl(), tls: false }, 'fires-consumer-test');
    keys = new DroverKeys(uniquePrefix('fc'), false);
    fires = FiresQueue.create(conns, keys);
  });

  /** A consumer of the fires queue, one fire at a time, handing each fire to `dispatcher`. */
  function startConsumer(dispatcher: Dispatcher): void {
    consumer = new FiresConsumer(
      conns,
      keys,
      dispatcher,
      new ReadinessRegistry(),
      { ...DEFAULT_SCHEDULER_OPTIONS, fireConcurrency: 1 },
      pino({ level: 'silent' }),
      new SystemClock(),
    );
    consumer.onApplicationBootstrap();
  }

  afterEach(async () => {
    await consumer?.onApplicationShutdown();
    await fires.obliterate({ force: true }).catch(() => undefined);
    await fires.close();
    await conns.closeAll();
  });

  it('retries a fire whose dispatch failed and removes it once dispatched, as the options it lacks say', async () => {
    // Exactly what the reconciler writes: a template with a name and data, and no options.
    await fires.upsertJobScheduler(
      'r1',
      { every: 60_000, startDate: Date.now() + 200 },
      {
        name: 'fire',
        data: { routine: 'r1' },
      },
    );
    const schedulerKey = `${keys.bullPrefix}:${keys.bullQueueName('_fires')}:repeat:r1`;
    // Options of more than 64 bytes would make this a hash table, ~3x the bytes per routine.
    expect(await conns.command.object('ENCODING', schedulerKey)).toBe('listpack');

    const calls: string[] = [];
    const dispatcher = {
      dispatch: (routine: string) => {
        calls.push(routine);
        if (calls.length === 1) return Promise.reject(new Error('a Redis blip'));
        return Promise.resolve({ enqueued: [], skipped: [], failed: [], duplicates: 0 });
      },
    } as unknown as Dispatcher;
    startConsumer(dispatcher);

    await waitFor('the failed fire to be retried and dispatched', () => Promise.resolve(calls.length >= 2), {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    expect(calls).toEqual(['r1', 'r1']);
    // Dispatched: removed at once (its run is the record), leaving only the scheduler's next fire.
    await waitFor(
      'the dispatched fire to be removed',
      async () => (await fires.getCompletedCount()) === 0 && (await fires.getDelayedCount()) === 1,
      { timeoutMs: 5_000, intervalMs: 50 },
    );
    expect(await fires.getFailedCount()).toBe(0);
  });

  it("asks again each second while the replicas do not have its claim, past the fire's own attempts", async () => {
    await fires.upsertJobScheduler(
      'r2',
      { every: 600_000, startDate: Date.now() + 200 },
      { name: 'fire', data: { routine: 'r2' } },
    );
    // Failing longer than FIRE_RETRY's attempts would last (a failover's resync), then replicated.
    const refusals = FIRE_RETRY.attempts + 2;
    const calls: number[] = [];
    const dispatcher = {
      dispatch: () => {
        calls.push(Date.now());
        if (calls.length <= refusals) {
          return Promise.reject(new NotReplicatedError('the claim of slot 1 of routine "r2"', 0, 1, 'timed out'));
        }
        return Promise.resolve({ enqueued: [], skipped: [], failed: [], duplicates: 0 });
      },
    } as unknown as Dispatcher;
    startConsumer(dispatcher);
    await waitFor('the fire to be dispatched once replicated', () => Promise.resolve(calls.length > refusals), {
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    // Never failed for good, and asked about once a second.
    expect(await fires.getFailedCount()).toBe(0);
    const gaps = calls.slice(1).map((t, i) => t - calls[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(900);
    await new Promise((r) => setTimeout(r, 1_200));
    expect(calls).toHaveLength(refusals + 1);
  }, 30_000);
});
