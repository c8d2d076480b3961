import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule, runApp, WorkerRuntimeModule, type AppConfig, type Logger } from '@drover/worker';
import { FlakyHandler } from './flaky.handler';
import { GreetHandler } from './greet.handler';
import { SumUpHandler } from './sum-up.handler';
import { TallyHandler } from './tally.handler';

/** The team's handlers: plain NestJS providers marked with @JobHandler (they may inject anything). */
@Module({ providers: [GreetHandler, FlakyHandler, TallyHandler, SumUpHandler] })
class HandlersModule {}

/** The worker app: Drover's platform (config, logs, Redis, /healthz, /readyz, /metrics, drain) + the worker role. */
@Module({})
class NestWorkerModule {
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: NestWorkerModule,
      imports: [
        PlatformModule.forRoot(config, logger),
        WorkerRuntimeModule.forRoot({ version: '0.0.0' }),
        HandlersModule,
      ],
    };
  }
}

// Configured by Drover's environment variables (REDIS_URL, DROVER_PREFIX, DROVER_QUEUES, PORT…).
void runApp({ name: 'nest-worker', defaultPort: 3010, module: NestWorkerModule.forRoot });
