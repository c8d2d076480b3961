import { cancelChannel } from '@drover/store';
import { testRedisClient, uniquePrefix, waitFor } from '@drover/testing';
import { JobCanceledError } from './errors/job-canceled.error';
import { gate, producer, startRuntime, newRun, type Harness, type RuntimeHandle } from './testing/runtime-harness';

/**
 * The worker's periodic refresh (REFRESH_MS in worker-runtime.service) runs every 30 s and never
 * looked at cancels; a cancel heard of through the resync after a reconnect ends the run within
 * a few seconds even on a loaded machine.
 */
const PROMPTLY_MS = 5_000;

describe('WorkerRuntime: a cancel published while its subscriber reconnects', () => {
  let p: Harness;
  let w: RuntimeHandle | undefined;
  const redis = testRedisClient();

  afterEach(async () => {
    await w?.close();
    w = undefined;
    await p?.close();
  });
  afterAll(() => redis.disconnect());

  it('still aborts the running attempt: the handler sees its signal abort and the run ends canceled', async () => {
    const instance = uniquePrefix('wsub');
    p = await producer(uniquePrefix('rt'), [{ name: 'q', maxAttempts: 3 }]);
    w = await startRuntime(p.prefix, { DROVER_INSTANCE_ID: instance });
    await p.runs.enqueue(newRun('a-held', 'test.block'));
    await gate('a-held').started;

    const line = String(await redis.client('LIST'))
      .split('\n')
      .find((l) => l.includes(`name=drover:${instance}:worker-sub `));
    const id = /\bid=(\d+)/.exec(line ?? '')?.[1];
    expect(id).toBeDefined();
    const channel = cancelChannel(p.keys);
    // Killed, then canceled before ioredis reconnects (its first retry waits 200 ms): the cancel
    // is recorded on the run but its announcement reaches nobody.
    await redis.client('KILL', 'ID', id!);
    const t0 = Date.now();
    expect((await p.runs.cancel('a-held', 'while away')).outcome).toBe('cancel-requested');
    const [, subscribers] = (await redis.pubsub('NUMSUB', channel)) as [string, number];
    expect(subscribers).toBe(0);

    await waitFor('the handler to see its signal abort', () => gate('a-held').aborts.length > 0, {
      timeoutMs: PROMPTLY_MS,
      intervalMs: 10,
    });
    expect(Date.now() - t0).toBeLessThan(PROMPTLY_MS);
    expect(gate('a-held').aborts).toEqual([new JobCanceledError('while away')]);
    const { run } = await p.runs.waitForTerminal('a-held', PROMPTLY_MS);
    expect(run).toMatchObject({ status: 'canceled', reason: 'while away', attempt: 1 });
  });
});
