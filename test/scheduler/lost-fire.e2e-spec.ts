import { parseBundle, type Routine } from '@drover/core';
import { FIRES_QUEUE } from '@drover/store';
import { startHttpOracle, waitFor, type HttpOracle } from '@drover/testing';
import { TestCluster } from './cluster';

/** Idle routines beside the watched one (the benchmark measures 100 000; see docs/benchmarks.md). */
const IDLE = 10_000;
const EVERY_MS = 5_000;

function idle(i: number): Routine {
  const res = parseBundle(
    {
      routines: [
        {
          name: `idle-${i}`,
          jobType: 'noop',
          queue: 'default',
          trigger:
            i % 2
              ? { kind: 'cron', cron: '0 3 1 1 *', tz: 'Europe/Berlin' }
              : { kind: 'interval', everyMs: 86_400_000 },
        },
      ],
    },
    { knownQueues: ['default'] },
  );
  if (!res.ok) throw new Error(res.errors.join());
  return res.bundle.routines[0]!;
}

/**
 * A fire lost among many idle routines (its delayed job removed from the fires queue, as a Redis
 * that lost the write would) is repaired by the leader's watchdog within 5 s of its slot: the
 * watchdog reads only the routines whose expected slot has passed, not every routine.
 */
describe('a lost fire among 10 000 idle routines', () => {
  let oracle: HttpOracle;
  let cluster: TestCluster;

  beforeAll(async () => {
    oracle = await startHttpOracle();
    cluster = new TestCluster({
      queues: [{ name: 'default', concurrency: 10 }],
      routines: [
        {
          name: 'watched',
          jobType: 'http.request',
          queue: 'default',
          trigger: { kind: 'interval', everyMs: EVERY_MS },
          // Not armed ahead: each slot's run is made when its fire arrives, so losing the fire loses the run.
          concurrencyPolicy: 'forbid',
          payload: { url: `${oracle.url}/hit`, method: 'POST' },
        },
      ],
    });
  });

  afterAll(async () => {
    await cluster.stopAll();
    await oracle.close();
  });

  it('runs the slot whose fire was deleted, once, within 5 s of its slot', async () => {
    await cluster.routines.createMany(
      Array.from({ length: IDLE }, (_, i) => idle(i)),
      'api',
      Date.now(),
    );
    await cluster.start('worker', 'worker-1');
    await cluster.start('scheduler', 'sched-1');
    const redis = cluster.connections.command;
    // The leader has written every schedule and looked at every routine once.
    await waitFor(
      'the first full pass',
      async () =>
        (await redis.hlen(cluster.keys.schedulerDefs())) === IDLE + 1 &&
        (await redis.zcount(cluster.keys.routineDue(), '-inf', 0)) === 0,
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    await oracle.waitFor('a first run', (h) => h.length > 0, 20_000);

    // The next fire waits in the fires queue as a delayed job: lose it.
    const fires = cluster.bull.get(FIRES_QUEUE);
    // Found through its Job Scheduler, not by listing all 10 000 delayed fires (slow on a loaded machine).
    const next = await waitFor(
      'the next fire, more than a second ahead',
      async () => {
        const at = (await fires.getJobScheduler('watched'))?.next;
        if (at === undefined || at <= Date.now() + 1_000) return undefined;
        return fires.getJob(`repeat:watched:${at}`);
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    const slot = Number(next.id!.split(':').at(-1));
    // BullMQ refuses to remove a Job Scheduler's job: drop it as a Redis that lost the write would.
    await redis.multi().zrem(fires.keys.delayed!, next.id!).del(fires.toKey(next.id!)).exec();
    expect(await fires.getJob(next.id!)).toBeUndefined();
    const iso = new Date(slot).toISOString();

    await oracle.waitFor('the lost slot', (h) => h.some((x) => x.scheduledFor === iso), 20_000);
    // Nothing else ran it: one delivery, counted at the receiver.
    await new Promise((r) => setTimeout(r, 2_000));
    const lost = oracle.hits.filter((x) => x.scheduledFor === iso);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.receivedAt - slot).toBeLessThanOrEqual(5_000);
  }, 180_000);
});
