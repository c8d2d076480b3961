import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { DroverModuleOptions } from './drover-options';

/**
 * `forRoot(options)` / `forRootAsync({ useFactory, inject, imports } | { useClass } | { useExisting })`,
 * with `isGlobal` to provide the client to every module without importing DroverModule again.
 */
export const {
  ConfigurableModuleClass: DroverConfigurableModule,
  MODULE_OPTIONS_TOKEN: DROVER_MODULE_OPTIONS,
  OPTIONS_TYPE: DROVER_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: DROVER_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<DroverModuleOptions>({ moduleName: 'Drover' })
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: false }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();

/** Injection token of the module's connection (internal: inject {@link DroverClient} instead). */
export const DROVER_CONNECTION = Symbol('drover.client.connection');
