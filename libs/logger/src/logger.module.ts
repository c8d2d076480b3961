import { type DynamicModule, Global, Module } from '@nestjs/common';
import type { Logger } from 'pino';

/** Injection token of the process's root pino logger. */
export const LOGGER = Symbol('drover.logger');

@Global()
@Module({})
export class LoggerModule {
  static forRoot(logger: Logger): DynamicModule {
    return { module: LoggerModule, providers: [{ provide: LOGGER, useValue: logger }], exports: [LOGGER] };
  }
}
