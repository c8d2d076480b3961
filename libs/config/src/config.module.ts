import { type DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';

/** Makes the already-validated {@link AppConfig} injectable everywhere in an app. */
@Global()
@Module({})
export class DroverConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: DroverConfigModule, providers: [{ provide: AppConfig, useValue: config }], exports: [AppConfig] };
  }
}
