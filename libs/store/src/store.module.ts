import { Module, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '@drover/platform';
import { DroverKeys, RedisConnections } from '@drover/redis';
import { BullQueues } from './queues/bull-queues';
import { QueueRegistry } from './queues/queue-registry.store';
import { PlanService } from './plan/plan.service';
import { RoutineStore } from './routines/routine.store';
import { RunStore } from './runs/run.store';
import { SlotClaims } from './slots/slot-claims.store';
import { WorkerCatalog } from './workers/worker-catalog.store';

/**
 * The Redis-backed stores as Nest providers (one instance per process, however many roles import
 * the module). Needs RedisConnections and DroverKeys (the platform's RedisModule).
 */
@Module({
  providers: [
    {
      provide: BullQueues,
      inject: [RedisConnections, DroverKeys],
      useFactory: (c: RedisConnections, k: DroverKeys) => new BullQueues(c, k),
    },
    {
      provide: QueueRegistry,
      inject: [RedisConnections, DroverKeys, BullQueues],
      useFactory: (c: RedisConnections, k: DroverKeys, b: BullQueues) => new QueueRegistry(c.command, k, b),
    },
    {
      provide: RunStore,
      inject: [RedisConnections, DroverKeys, QueueRegistry, BullQueues, Clock],
      useFactory: (c: RedisConnections, k: DroverKeys, r: QueueRegistry, b: BullQueues, clock: Clock) =>
        new RunStore(c, k, r, { bull: b, now: () => clock.now() }),
    },
    {
      provide: WorkerCatalog,
      inject: [RedisConnections, DroverKeys],
      useFactory: (c: RedisConnections, k: DroverKeys) => new WorkerCatalog(c.command, k),
    },
    {
      provide: RoutineStore,
      inject: [RedisConnections, DroverKeys],
      useFactory: (c: RedisConnections, k: DroverKeys) => new RoutineStore(c.command, k),
    },
    {
      provide: SlotClaims,
      inject: [RedisConnections, DroverKeys],
      useFactory: (c: RedisConnections, k: DroverKeys) => new SlotClaims(c.command, k),
    },
    {
      provide: PlanService,
      inject: [RoutineStore, QueueRegistry, BullQueues, WorkerCatalog, RunStore, RedisConnections, Clock],
      useFactory: (
        routines: RoutineStore,
        registry: QueueRegistry,
        bull: BullQueues,
        catalog: WorkerCatalog,
        runs: RunStore,
        c: RedisConnections,
        clock: Clock,
      ) => new PlanService({ routines, registry, bull, catalog, runs, redis: c.command, now: () => clock.now() }),
    },
  ],
  exports: [BullQueues, QueueRegistry, RunStore, WorkerCatalog, RoutineStore, SlotClaims, PlanService],
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
