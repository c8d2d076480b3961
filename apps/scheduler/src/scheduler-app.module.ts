import { type DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import type { AppConfig } from '@drover/config';
import { PlatformModule } from '@drover/platform';
import { SchedulerRoleModule } from '@drover/builtins';

/** The scheduler app: leader-elected owner of routines that fires runs. */
@Module({})
export class SchedulerAppModule {
  static forRoot(this: void, config: AppConfig, logger: Logger): DynamicModule {
    return { module: SchedulerAppModule, imports: [PlatformModule.forRoot(config, logger), SchedulerRoleModule] };
  }
}
