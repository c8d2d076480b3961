import pino from 'pino';
import { DroverMetrics } from '@drover/metrics';
import { DroverKeys, RedisConnections } from '@drover/redis';
import {
  BullQueues,
  QueueRegistry,
  RoutineChanges,
  RoutineStatsStore,
  RoutineIndex,
  RoutineStore,
  RunStore,
  SlotClaims,
  SlotSkips,
} from '@drover/store';
import type { QueueInput } from '@drover/core';
import { ManualClock, testRedisUrl, uniquePrefix } from '@drover/testing';
import { CandidateRegistry } from '../candidates/candidate-registry.service';
import { ConditionKindRegistry } from '../conditions/condition-kind-registry.service';
import { ConditionRegistry } from '../conditions/condition-registry.service';
import { QueueDepthCondition } from '../conditions/queue-depth.condition';
import { SlotSelector } from '../fires/slot-selector';
import { Disarmer } from '../fires/disarmer';
import { Dispatcher } from '../fires/dispatcher.service';
import { SlotApplier } from '../fires/slot-applier';
import { SlotDecider } from '../fires/slot-decider';
import { DEFAULT_SCHEDULER_OPTIONS } from '../scheduler-options';

/**
 * A dispatcher wired to a real Redis (its own key prefix) and real BullMQ queues, the way the
 * scheduler module wires it, for integration tests. `close()` releases everything.
 */
export async function dispatcherHarness(queues: QueueInput[], t0: number) {
  const conns = new RedisConnections({ kind: 'url', url: testRedisUrl(), tls: false }, 'dispatch-test');
  const keys = new DroverKeys(uniquePrefix('disp'), false);
  const clock = new ManualClock(t0);
  const bull = new BullQueues(conns, keys);
  const registry = new QueueRegistry(conns.command, keys, bull, clock);
  await registry.put(queues);
  const log = pino({ level: 'silent' });
  const runs = new RunStore(conns, keys, registry, {
    bull,
    clock,
    stats: new RoutineStatsStore(conns.command, keys),
  });
  const routines = new RoutineStore(conns.command, keys);
  const index = new RoutineIndex(conns.command, keys);
  const claims = new SlotClaims(conns.command, keys);
  const skips = new SlotSkips(conns.command, keys);
  const conditions = new ConditionRegistry(undefined as never, undefined as never, undefined as never);
  // The kinds the scheduler module registers by discovery, registered by hand.
  const kinds = new ConditionKindRegistry(undefined as never, undefined as never, undefined as never);
  const queueDepth = new QueueDepthCondition(bull, registry);
  kinds.register('queue-depth', (ctx) => queueDepth.check(ctx), 'QueueDepthCondition');
  const candidates = new CandidateRegistry(undefined as never, undefined as never, undefined as never);
  const metrics = new DroverMetrics({ defaultMetrics: false });
  const disarmer = new Disarmer(claims, bull, clock, log, new SlotSkips(conns.command, keys));
  const changes = new RoutineChanges(conns.command, keys);
  const dispatcher = new Dispatcher(
    routines,
    claims,
    skips,
    new SlotDecider(conditions, kinds, new SlotSelector(candidates, runs), runs, log),
    new SlotApplier(runs, metrics),
    disarmer,
    changes,
    clock,
    metrics,
    DEFAULT_SCHEDULER_OPTIONS,
    log,
  );
  return {
    conns,
    keys,
    bull,
    runs,
    routines,
    index,
    claims,
    skips,
    conditions,
    kinds,
    candidates,
    metrics,
    clock,
    disarmer,
    changes,
    dispatcher,
    async close() {
      await runs.close();
      await bull.closeAll();
      await conns.closeAll();
    },
  };
}
