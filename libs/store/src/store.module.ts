import { Module, type OnApplicationShutdown } from '@nestjs/common';
import { Clock, DroverKeys, RedisConnections } from '@drover/redis';
import { ProcessCatalog } from './cluster/process-catalog.store';
import { createStores, type Stores } from './create-stores';
import { PlanService } from './plan/plan.service';
import { BullQueues } from './queues/bull-queues';
import { QueueEventHub } from './queues/queue-event-hub';
import { QueueRegistry } from './queues/queue-registry.store';
import { RoutineChanges } from './routines/routine-changes';
import { RoutineIndex } from './routines/routine-index';
import { RoutineStore } from './routines/routine.store';
import { RoutineStatsStore } from './routines/routine-stats.store';
import { QueueStatsStore } from './queues/queue-stats.store';
import { RunStore } from './runs/run.store';
import { BatchStore } from './batches/batch.store';
import { SlotClaims } from './slots/slot-claims.store';
import { SlotSkips } from './routines/slot-skips.store';
import { WorkerCatalog } from './workers/worker-catalog.store';

const STORES = Symbol('drover.stores');
const each = <T>(pick: (s: Stores) => T) => ({ inject: [STORES], useFactory: pick });

/**
 * The Redis-backed stores as Nest providers (one instance per process, however many roles import
 * the module), all from {@link createStores}. Needs RedisConnections, DroverKeys (the platform's
 * RedisModule) and the platform's Clock.
 */
@Module({
  providers: [
    {
      provide: STORES,
      inject: [RedisConnections, DroverKeys, Clock],
      useFactory: (c: RedisConnections, k: DroverKeys, clock: Clock) => createStores(c, k, clock),
    },
    { provide: BullQueues, ...each((s) => s.bull) },
    { provide: QueueRegistry, ...each((s) => s.registry) },
    { provide: RunStore, ...each((s) => s.runs) },
    { provide: RoutineStore, ...each((s) => s.routines) },
    { provide: RoutineChanges, ...each((s) => s.routineChanges) },
    { provide: RoutineIndex, ...each((s) => s.routineIndex) },
    { provide: RoutineStatsStore, ...each((s) => s.stats) },
    { provide: QueueStatsStore, ...each((s) => s.queueStats) },
    { provide: QueueEventHub, ...each((s) => s.runs.events) },
    { provide: BatchStore, ...each((s) => s.runs.batches) },
    { provide: SlotClaims, ...each((s) => s.claims) },
    { provide: SlotSkips, ...each((s) => s.skips) },
    { provide: WorkerCatalog, ...each((s) => s.catalog) },
    { provide: PlanService, ...each((s) => s.plan) },
    { provide: ProcessCatalog, ...each((s) => s.processes) },
  ],
  exports: [
    BullQueues,
    QueueRegistry,
    RunStore,
    RoutineStore,
    RoutineChanges,
    RoutineIndex,
    RoutineStatsStore,
    QueueStatsStore,
    QueueEventHub,
    BatchStore,
    SlotClaims,
    SlotSkips,
    WorkerCatalog,
    PlanService,
    ProcessCatalog,
  ],
})
export class StoreModule implements OnApplicationShutdown {
  constructor(
    private readonly runs: RunStore,
    private readonly bull: BullQueues,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.runs.close();
    await this.bull.closeAll();
  }
}
