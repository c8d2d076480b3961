import { type DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import type { AppConfig } from '@drover/config';
import { PlatformModule } from '@drover/platform';
import { WorkerRoleModule } from '@drover/builtins';

/** The worker app: consumes queues and runs handlers. */
@Module({})
export class WorkerAppModule {
  static forRoot(this: void, config: AppConfig, logger: Logger): DynamicModule {
    return { module: WorkerAppModule, imports: [PlatformModule.forRoot(config, logger), WorkerRoleModule] };
  }
}
