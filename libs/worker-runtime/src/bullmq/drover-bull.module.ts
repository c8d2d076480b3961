import { type DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { DroverKeys, RedisConnections } from '@drover/redis';
import { WorkerRuntimeModule } from '../worker-runtime.module';
import type { WorkerRuntimeOptions } from '../worker-runtime.options';
import { BullProcessors } from './bull-processors.service';

/**
 * The worker role for an app written with @nestjs/bullmq: import it instead of
 * `BullModule.forRoot(...)` (and of `WorkerRuntimeModule.forRoot()`). It is BullModule's shared
 * configuration — Drover's Redis connection and key prefix, so `BullModule.registerQueue` and
 * `@InjectQueue` producers reach the queues Drover consumes — with `manualRegistration`, so
 * @nestjs/bullmq makes no Worker of its own, plus the worker runtime, which runs every `@Processor`
 * class as the handler of its queue. See docs/migrating-from-bullmq.md.
 */
@Module({})
export class DroverBullModule {
  static forRoot(options: WorkerRuntimeOptions = {}): DynamicModule {
    // Loaded here, not at the top: @nestjs/bullmq is an optional peer of the worker package, needed
    // only by apps that use it (an app without it can still load everything else).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { BullModule } = require('@nestjs/bullmq') as typeof import('@nestjs/bullmq');
    return {
      module: DroverBullModule,
      imports: [
        DiscoveryModule,
        WorkerRuntimeModule.forRoot(options),
        BullModule.forRootAsync({
          inject: [RedisConnections, DroverKeys],
          // The shared command connection (a Queue never blocks), as Drover's own queues use.
          useFactory: (connections: RedisConnections, keys: DroverKeys) => {
            // On Cluster Drover names a queue's BullMQ queue `{name}` (one hash slot per queue);
            // registerQueue({ name }) would name it `name` and reach other keys.
            if (keys.cluster) throw new Error('DroverBullModule does not support Redis Cluster (REDIS_CLUSTER_NODES)');
            return { connection: connections.command, prefix: keys.bullPrefix };
          },
          extraOptions: { manualRegistration: true },
        }),
      ],
      providers: [BullProcessors],
    };
  }
}
