import pino from 'pino';
import { AppConfig, parseEnv } from '@drover/config';
import { parseBundle, type Routine } from '@drover/core';
import { DroverMetrics } from '@drover/metrics';
import { SystemClock } from '@drover/redis';
import { testRedisClient, testRedisUrl, testStores, waitFor } from '@drover/testing';
import { Disarmer } from '../fires/disarmer';
import { FiresQueue } from '../fires/fires-queue.provider';
import { Reconciler } from '../reconcile/reconciler.service';
import { Watchdog } from '../reconcile/watchdog.service';
import { DEFAULT_SCHEDULER_OPTIONS } from '../scheduler-options';
import { createLeaderElector } from './leader-elector.provider';
import { SchedulerLeaderService } from './scheduler-leader.service';

function every(name: string): Routine {
  const res = parseBundle({
    queues: [{ name: 'default' }],
    routines: [{ name, jobType: 'noop', queue: 'default', trigger: { kind: 'interval', everyMs: 60_000 } }],
  });
  if (!res.ok) throw new Error(res.errors.join('; '));
  return res.bundle.routines[0]!;
}

/**
 * A routine stored through the API reaches the leader by one pub/sub message. Whenever that
 * message cannot arrive — the leader is still taking office, or its subscriber is reconnecting —
 * the leader must still give the routine its Job Scheduler at once, not at the next full
 * reconcile (a minute by default; set far beyond these tests here).
 */
describe('the leader picks up routines changed while it could not hear about them (real Redis, real BullMQ)', () => {
  const log = pino({ level: 'silent' });
  const clock = new SystemClock();
  let stores: ReturnType<typeof testStores>;
  let fires: FiresQueue;
  let watchdog: Watchdog;
  let leader: SchedulerLeaderService;

  beforeEach(async () => {
    stores = testStores('leader-svc');
    const { connections: conns, keys, routines, bull, claims } = stores;
    await stores.registry.put([{ name: 'default' }]);
    fires = FiresQueue.create(conns, keys);
    const metrics = new DroverMetrics({ defaultMetrics: false });
    const disarmer = new Disarmer(claims, bull, clock, log, stores.skips);
    const opts = { ...DEFAULT_SCHEDULER_OPTIONS, reconcileEveryMs: 3_600_000 };
    watchdog = new Watchdog(routines, stores.routineIndex, disarmer, bull, clock, metrics, opts, log, stores.runs);
    const env = parseEnv({ REDIS_URL: testRedisUrl(), DROVER_INSTANCE_ID: 'lead-test', DROVER_LEADER_TTL_MS: '5000' });
    const config = new AppConfig('scheduler', env);
    leader = new SchedulerLeaderService(
      config,
      conns,
      createLeaderElector(config, conns, keys, log, metrics),
      routines,
      new Reconciler(conns, keys, routines, stores.routineIndex, fires, clock, log),
      watchdog,
      disarmer,
      metrics,
      clock,
      stores.registry,
      bull,
      stores.catalog,
      opts,
      log,
    );
  });

  afterEach(async () => {
    await leader.onApplicationShutdown();
    await fires.close();
    await stores.close();
  });

  const hasScheduler = async (name: string) => (await fires.getJobScheduler(name)) !== undefined;

  it('a routine stored while the leader takes office (after its first reconcile) gets its scheduler', async () => {
    // The first watchdog pass of a new leader runs right after its first full reconcile: a routine
    // stored at that moment is not in that reconcile.
    const pass = watchdog.pass.bind(watchdog);
    let stored = false;
    jest.spyOn(watchdog, 'pass').mockImplementation(async (lead, isCurrent) => {
      if (!stored) {
        stored = true;
        await stores.routines.upsert(every('while-electing'), 'api', clock.now());
      }
      return pass(lead, isCurrent);
    });
    leader.onApplicationBootstrap();
    await waitFor('the routine to be stored', () => stored || undefined, { timeoutMs: 10_000 });
    await waitFor('its Job Scheduler', async () => (await hasScheduler('while-electing')) || undefined, {
      timeoutMs: 5_000,
    });
  }, 20_000);

  it("a routine stored while the leader's subscriber is cut off gets its scheduler once it is back", async () => {
    leader.onApplicationBootstrap();
    await stores.routines.upsert(every('before'), 'api', clock.now());
    await waitFor('the first routine to be reconciled', async () => (await hasScheduler('before')) || undefined, {
      timeoutMs: 10_000,
    });
    // Redis drops the subscriber (as on a failover or a network blip); the change is published
    // while it is away (it reconnects no sooner than 200 ms later) and reaches nobody.
    const admin = testRedisClient();
    try {
      expect(await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub')).toBeGreaterThan(0);
      await stores.routines.upsert(every('while-away'), 'api', clock.now());
    } finally {
      admin.disconnect();
    }
    await waitFor('its Job Scheduler', async () => (await hasScheduler('while-away')) || undefined, {
      timeoutMs: 5_000,
    });
  }, 20_000);

  it('a leader taking office over an index short of routines (an upgrade, partial data) rebuilds it', async () => {
    await stores.routines.upsert(every('kept'), 'api', clock.now());
    await stores.routines.upsert(every('dropped'), 'api', clock.now());
    // What an upgrade from a version without the index, or a partial restore, leaves.
    const redis = stores.connections.command;
    await redis.del(stores.keys.routineDue());
    await redis.zadd(stores.keys.routineDue(), 9e15, 'kept');
    // Every change counted as reconciled: only the index's size tells the leader to rebuild it.
    await redis.hset(stores.keys.reconciled(), 'seq', await stores.routineIndex.seq());
    leader.onApplicationBootstrap();
    const next = (t: number) => Math.ceil((t + 1) / 60_000) * 60_000;
    await waitFor(
      'both entries at their next slot',
      async () => {
        const [kept, dropped] = await Promise.all([
          stores.routineIndex.entry('kept'),
          stores.routineIndex.entry('dropped'),
        ]);
        return kept !== undefined && kept <= next(clock.now()) && dropped !== undefined && dropped > 0
          ? true
          : undefined;
      },
      { timeoutMs: 10_000 },
    );
  }, 20_000);
});
