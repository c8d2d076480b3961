import { type DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import type { AppConfig } from '@drover/config';
import { ApiModule } from '@drover/api';
import { PlatformModule } from '@drover/platform';
import { SchedulerRoleModule, WorkerRoleModule } from '@drover/builtins';

/** All three roles in one process, for a laptop and the quick start. */
@Module({})
export class StandaloneAppModule {
  static forRoot(this: void, config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: StandaloneAppModule,
      imports: [PlatformModule.forRoot(config, logger), SchedulerRoleModule, WorkerRoleModule, ApiModule],
    };
  }
}
