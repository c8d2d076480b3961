import { type DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { ApiModule } from '@drover/api';
import type { AppConfig } from '@drover/config';
import { PlatformModule } from '@drover/platform';

/** The api app: the management REST API for operators (docs/api.md). */
@Module({})
export class ApiAppModule {
  static forRoot(this: void, config: AppConfig, logger: Logger): DynamicModule {
    return { module: ApiAppModule, imports: [PlatformModule.forRoot(config, logger), ApiModule] };
  }
}
