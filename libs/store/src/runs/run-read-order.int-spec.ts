import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Command } from 'ioredis';
import type { DroverKeys, RedisConnections, RedisClient } from '@drover/redis';
import { testStores } from '@drover/testing';
import type { BullQueues } from '../queues/bull-queues';
import { encodeAttempt } from './attempt-log';
import { NotParkedError } from './parked.store';
import { replayRunId } from './run-ids';
import type { RunStore } from './run.store';

/**
 * Makes one interleaving certain on a real connection: after the first command that reads job
 * `id` (its hash, HGETALL, or its state, BullMQ's getState script) is answered, `between` runs
 * before any later read of that job is sent. Commands are not changed or answered here, only held
 * back in order. This is the race a worker's move can win between the two reads of a run view.
 */
function holdSecondRead(client: RedisClient, jobKey: string, id: string, between: () => Promise<void>) {
  const reads: string[] = [];
  const original = client.sendCommand.bind(client);
  let gate: Promise<void> | undefined;
  const readsJob = (cmd: Command) =>
    (cmd.name === 'hgetall' && String(cmd.args[0]) === jobKey) ||
    ((cmd.name === 'evalsha' || cmd.name === 'eval') && String(cmd.args[cmd.args.length - 1]) === id);
  client.sendCommand = ((cmd: Command, stream?: never) => {
    if (!readsJob(cmd)) return original(cmd, stream);
    reads.push(cmd.name === 'hgetall' ? 'job' : 'state');
    if (!gate) {
      const sent = original(cmd, stream);
      gate = cmd.promise.then(between, between);
      return sent;
    }
    void gate.then(() => original(cmd, stream));
    return cmd.promise;
  }) as typeof client.sendCommand;
  return {
    reads,
    release: () => {
      client.sendCommand = original;
    },
  };
}

describe('run views read while a worker parks the run (real Redis, real BullMQ transition)', () => {
  const queue = 'q';
  let connections: RedisConnections;
  let keys: DroverKeys;
  let bull: BullQueues;
  let runs: RunStore;
  let stores: ReturnType<typeof testStores>;
  let worker: Worker;
  let job: Job;
  let failedAt: number;
  let finishedOn: number | undefined;

  /** An active run that the next `park()` moves to `failed` the way Drover's worker does. */
  beforeEach(async () => {
    finishedOn = undefined;
    stores = testStores('read-order');
    ({ connections, keys, bull, runs } = stores);
    await stores.registry.put([{ name: queue, maxAttempts: 1 }]);
    await runs.enqueue({
      id: 'a-1',
      routine: null,
      jobType: 'http.request',
      queue,
      source: 'api',
      scheduledFor: null,
      payload: {},
    });
    worker = new Worker(keys.bullQueueName(queue), null, {
      connection: connections.open('blocking', 'parker'),
      prefix: keys.bullPrefix,
    });
    job = (await worker.getNextJob('tok'))!;
  });

  afterEach(async () => {
    await worker.close();
    await stores.close();
  });

  /** BullMQ's moveToFailed: state, failedReason, stacktrace and finishedOn in one script. */
  async function park(): Promise<void> {
    failedAt = Date.now();
    const err = new UnrecoverableError('connect ECONNREFUSED 127.0.0.1:1');
    err.stack = encodeAttempt({ attempt: 1, kind: 'error', message: err.message, failedAt });
    await job.moveToFailed(err, 'tok');
    finishedOn = job.finishedOn!;
  }

  it('RunStore.get never shows a run parked without its error: it is still running, or parked with it', async () => {
    const hold = holdSecondRead(connections.command, bull.keys.bullJob(queue, 'a-1'), 'a-1', park);
    const seen = await runs.get('a-1', queue);
    hold.release();
    // The move really ran between the view's two reads of the job.
    expect(hold.reads).toHaveLength(2);
    expect(finishedOn).toBeDefined();
    expect(['running', 'parked']).toContain(seen!.status);
    if (seen!.status === 'parked') expect(seen!.error).toEqual({ message: 'connect ECONNREFUSED 127.0.0.1:1' });
    // Read again: parked, with the error BullMQ wrote in the same script that parked it.
    expect(await runs.get('a-1', queue)).toMatchObject({
      status: 'parked',
      reason: 'attempts-exhausted',
      error: { message: 'connect ECONNREFUSED 127.0.0.1:1' },
      finishedAt: expect.any(Number),
    });
  });

  it('RunStore.getParked never answers a parked run without its errors', async () => {
    const hold = holdSecondRead(connections.command, bull.keys.bullJob(queue, 'a-1'), 'a-1', park);
    const seen = await runs.getParked('a-1', queue);
    hold.release();
    expect(hold.reads).toHaveLength(2);
    if (seen) expect(seen.errors).toEqual([expect.objectContaining({ message: 'connect ECONNREFUSED 127.0.0.1:1' })]);
    expect((await runs.getParked('a-1', queue))!.errors).toHaveLength(1);
  });

  it('a replay racing the parking move refuses, or replays the parked job itself (its replay id from finishedOn)', async () => {
    const hold = holdSecondRead(connections.command, bull.keys.bullJob(queue, 'a-1'), 'a-1', park);
    const replayed = await runs.replayParked(queue, 'a-1').catch((err: unknown) => err);
    hold.release();
    expect(hold.reads.length).toBeGreaterThanOrEqual(2);
    expect(finishedOn).toBeDefined();
    const expected = { replayOf: 'a-1', id: replayRunId('a-1', finishedOn!) };
    if (replayed instanceof NotParkedError) {
      expect(replayed.status).toBe('running');
      // Once parked, it replays under the id derived from the parked job.
      expect(await runs.replayParked(queue, 'a-1')).toEqual(expected);
    } else {
      expect(replayed).toEqual(expected);
    }
  });
});
