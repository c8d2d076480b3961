import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { DroverClient } from './drover-client.service';
import { DroverConnection } from './drover-connection';
import type { DroverModuleOptions } from './drover-options';
import { DROVER_CONNECTION, DROVER_MODULE_OPTIONS, DroverConfigurableModule } from './drover.module-definition';
import { resolveOptions, type ResolvedDroverOptions } from './resolve-options';

const RESOLVED_OPTIONS = Symbol('drover.client.resolved-options');

/**
 * Drover for a NestJS service: `DroverModule.forRoot({ redis, prefix, defaultQueue })` or
 * `forRootAsync({ imports, inject, useFactory })`, then inject {@link DroverClient}. Invalid
 * options fail the app's boot with one message naming every bad field. On shutdown the
 * connections Drover opened are closed; a client passed in as `redis.client` is left open.
 */
@Module({
  providers: [
    {
      provide: RESOLVED_OPTIONS,
      inject: [DROVER_MODULE_OPTIONS],
      useFactory: (options: DroverModuleOptions) => resolveOptions(options),
    },
    {
      provide: DROVER_CONNECTION,
      inject: [RESOLVED_OPTIONS],
      useFactory: (options: ResolvedDroverOptions) => new DroverConnection(options),
    },
    {
      provide: DroverClient,
      inject: [DROVER_CONNECTION, RESOLVED_OPTIONS],
      useFactory: (connection: DroverConnection, options: ResolvedDroverOptions) =>
        new DroverClient(connection, options),
    },
  ],
  exports: [DroverClient],
})
export class DroverModule extends DroverConfigurableModule implements OnApplicationShutdown {
  constructor(@Inject(DROVER_CONNECTION) private readonly connection: DroverConnection) {
    super();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.connection.close();
  }
}
