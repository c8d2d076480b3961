import { type DynamicModule, Global, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type { Logger } from 'pino';
import { AppConfig, DroverConfigModule } from '@drover/config';
import { LoggerModule } from '@drover/logger';
import { MetricsModule } from '@drover/metrics';
import { Clock, ClusterClock, RedisModule } from '@drover/redis';
import { HealthController } from './health.controller';
import { RANDOM, randomProvider } from './random';

import { ReadinessRegistry } from './readiness.registry';

/** What every Drover app has: config, logs, Redis, metrics, health and readiness, its clock and randomness. */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: PlatformModule,
      imports: [
        DroverConfigModule.forRoot(config),
        LoggerModule.forRoot(logger),
        MetricsModule,
        RedisModule,
        TerminusModule.forRoot({ logger: false }),
      ],
      controllers: [HealthController],
      providers: [ReadinessRegistry, { provide: Clock, useClass: ClusterClock }, randomProvider],
      exports: [ReadinessRegistry, Clock, RANDOM],
    };
  }
}
