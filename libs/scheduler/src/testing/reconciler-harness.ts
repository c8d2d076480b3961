import pino from 'pino';
import { Clock, DroverKeys, RedisConnections, SystemClock } from '@drover/redis';
import { RoutineIndex, RoutineStore } from '@drover/store';
import { testRedisUrl, uniquePrefix } from '@drover/testing';
import { FiresQueue } from '../fires/fires-queue.provider';
import { LeaderElector, type Leadership } from '../leadership/leader-elector';
import { Reconciler } from '../reconcile/reconciler.service';
import { DEFAULT_SCHEDULER_OPTIONS } from '../scheduler-options';

/** A reconciler on the test Redis under a fresh prefix, with a leadership it holds; `stop` closes it all. */
export interface ReconcilerHarness {
  conns: RedisConnections;
  keys: DroverKeys;
  fires: FiresQueue;
  routines: RoutineStore;
  reconciler: Reconciler;
  clock: Clock;
  lead: Leadership;
  /** Whether the harness's leadership is still the current one (what the reconciler's writes are fenced by). */
  isCurrent: () => boolean;
  stop(): Promise<void>;
}

/**
 * `leaseMs`: long enough to outlast the test's reconciles on a loaded machine when they write
 * thousands of routines (a lost lease refuses their writes). `horizonMs`: the schedule horizon;
 * unbounded by default, so every schedule is written to BullMQ at once (what the suites of BullMQ
 * writes look at; reconciler-later.int-spec.ts covers the horizon).
 */
export async function startReconcilerHarness(
  name: string,
  leaseMs = 5000,
  horizonMs = Number.POSITIVE_INFINITY,
  clock: Clock = new SystemClock(),
): Promise<ReconcilerHarness> {
  const conns = new RedisConnections({ kind: 'url', url: testRedisUrl(), tls: false }, name);
  const keys = new DroverKeys(uniquePrefix(name), false);
  const fires = FiresQueue.create(conns, keys);
  const routines = new RoutineStore(conns.command, keys);
  const index = new RoutineIndex(conns.command, keys);
  const reconciler = new Reconciler(conns, keys, routines, index, fires, clock, pino({ level: 'silent' }), {
    ...DEFAULT_SCHEDULER_OPTIONS,
    scheduleHorizonMs: horizonMs,
  });
  const elector = new LeaderElector(conns.open('command', 'leader'), keys, { instanceId: 'test', leaseMs });
  elector.start();
  const lead = await elector.waitForLeadership();
  return {
    conns,
    keys,
    fires,
    routines,
    reconciler,
    clock,
    lead,
    isCurrent: () => elector.leadership?.token === lead.token,
    async stop() {
      await elector.stop();
      await fires.close();
      await conns.closeAll();
    },
  };
}
