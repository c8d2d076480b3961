import { type DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AppConfig } from '@drover/config';
import { DroverKeys, RedisConnections } from '@drover/redis';
import { CandidateProbe, RunStore, StoreModule } from '@drover/store';
import { CandidateRanker } from './candidates/candidate-ranker.service';
import { CandidateRegistry } from './candidates/candidate-registry.service';
import { ConditionKindRegistry } from './conditions/condition-kind-registry.service';
import { ConditionRegistry } from './conditions/condition-registry.service';
import { QueueDepthCondition } from './conditions/queue-depth.condition';
import { SlotSelector } from './fires/slot-selector';
import { Disarmer } from './fires/disarmer';
import { Dispatcher } from './fires/dispatcher.service';
import { FiresConsumer } from './fires/fires-consumer.service';
import { FiresQueue } from './fires/fires-queue.provider';
import { RUN_SINK, type RunSink } from './fires/run-sink';
import { leaderElectorProvider } from './leadership/leader-elector.provider';
import { SchedulerLeaderService } from './leadership/scheduler-leader.service';
import { SchedulerPresence } from './leadership/scheduler-presence.service';
import { Reconciler } from './reconcile/reconciler.service';
import { Watchdog } from './reconcile/watchdog.service';
import { SlotApplier } from './fires/slot-applier';
import { SlotDecider } from './fires/slot-decider';
import { DEFAULT_SCHEDULER_OPTIONS, SCHEDULER_OPTIONS, type SchedulerOptions } from './scheduler-options';

export type SchedulerModuleOptions = Partial<SchedulerOptions>;

/** The scheduler role: leader election, reconcile, watchdog, and the fires consumer. */
@Module({})
export class SchedulerModule {
  static forRoot(options: SchedulerModuleOptions = {}): DynamicModule {
    return {
      module: SchedulerModule,
      imports: [DiscoveryModule, StoreModule],
      providers: [
        {
          provide: SCHEDULER_OPTIONS,
          inject: [{ token: AppConfig, optional: true }],
          useFactory: (config?: AppConfig): SchedulerOptions => ({
            ...DEFAULT_SCHEDULER_OPTIONS,
            ...(config && { armLeadMs: config.env.armLeadMs, scheduleHorizonMs: config.env.scheduleHorizonMs }),
            ...options,
          }),
        },
        { provide: RUN_SINK, useFactory: (runs: RunStore): RunSink => runs, inject: [RunStore] },
        {
          provide: FiresQueue,
          inject: [RedisConnections, DroverKeys],
          useFactory: (conns: RedisConnections, keys: DroverKeys) => {
            const queue = FiresQueue.create(conns, keys);
            // Its connection already logs every error; without a listener BullMQ writes each one to
            // stderr as a raw stack, breaking the JSON log stream while Redis is away.
            queue.on('error', () => undefined);
            return queue;
          },
        },
        ConditionRegistry,
        ConditionKindRegistry,
        QueueDepthCondition,
        CandidateRegistry,
        CandidateProbe,
        CandidateRanker,
        SlotSelector,
        SlotDecider,
        SlotApplier,
        Disarmer,
        Dispatcher,
        Watchdog,
        Reconciler,
        FiresConsumer,
        leaderElectorProvider,
        SchedulerLeaderService,
        SchedulerPresence,
      ],
      exports: [ConditionRegistry, ConditionKindRegistry, CandidateRegistry, SchedulerLeaderService, FiresQueue],
    };
  }
}
