import type { Clock, DroverKeys, RedisConnections } from '@drover/redis';
import { ProcessCatalog } from './cluster/process-catalog.store';
import { PlanService } from './plan/plan.service';
import { BullQueues } from './queues/bull-queues';
import { QueueRegistry } from './queues/queue-registry.store';
import { RoutineChanges } from './routines/routine-changes';
import { RoutineIndex } from './routines/routine-index';
import { RoutineStore } from './routines/routine.store';
import { RoutineStatsStore } from './routines/routine-stats.store';
import { QueueStatsStore } from './queues/queue-stats.store';
import { SlotSkips } from './routines/slot-skips.store';
import { RunStore } from './runs/run.store';
import { SlotClaims } from './slots/slot-claims.store';
import { WorkerCatalog } from './workers/worker-catalog.store';

/** Every Redis-backed store of a process, on one set of connections. */
export interface Stores {
  connections: RedisConnections;
  keys: DroverKeys;
  bull: BullQueues;
  registry: QueueRegistry;
  runs: RunStore;
  routines: RoutineStore;
  /** Announces routine changes the store's own writes do not (the leader reconciles at once). */
  routineChanges: RoutineChanges;
  /** The watchdog's index of expected slots and the change count (the leader's passes read only these). */
  routineIndex: RoutineIndex;
  /** Per-routine run statistics (hourly aggregates). */
  stats: RoutineStatsStore;
  /** Per-queue run totals (minute and hour buckets). */
  queueStats: QueueStatsStore;
  claims: SlotClaims;
  /** Operators' pending skips of single slots. */
  skips: SlotSkips;
  catalog: WorkerCatalog;
  processes: ProcessCatalog;
  plan: PlanService;
  /** Stops the run waiters and the BullMQ queue objects (the connections stay the caller's). */
  close(): Promise<void>;
}

/**
 * The one place the stores are put together: `StoreModule` provides each of them from it, and
 * callers outside Nest (the client module, tests, benchmarks) call it. `clock` is the process's
 * one clock (the cluster clock in a process), which run timestamps and records follow.
 */
export function createStores(connections: RedisConnections, keys: DroverKeys, clock: Clock): Stores {
  const bull = new BullQueues(connections, keys);
  const registry = new QueueRegistry(connections.command, keys, bull, clock);
  const stats = new RoutineStatsStore(connections.command, keys);
  const runs = new RunStore(connections, keys, registry, { bull, clock, stats });
  const routines = new RoutineStore(connections.command, keys);
  const catalog = new WorkerCatalog(connections.command, keys);
  const skips = new SlotSkips(connections.command, keys);
  // A WAIT holds its connection until the replicas answer or the timeout passes (a replica down
  // means every claim waits the full timeout): claims then get a connection of their own, so the
  // leader's lease and the rest of the process's commands never queue behind them.
  const claimsClient = connections.replicaWait.enabled ? connections.open('command', 'claims') : connections.command;
  return {
    connections,
    keys,
    bull,
    registry,
    runs,
    routines,
    routineChanges: new RoutineChanges(connections.command, keys),
    routineIndex: new RoutineIndex(connections.command, keys),
    stats,
    queueStats: new QueueStatsStore(connections.command, keys),
    claims: new SlotClaims(claimsClient, keys, connections.waitOn(claimsClient)),
    skips,
    catalog,
    processes: new ProcessCatalog(connections.command, keys),
    plan: new PlanService({ routines, registry, bull, catalog, runs, skips, redis: connections.command, clock }),
    async close() {
      await runs.close();
      await bull.closeAll();
    },
  };
}
