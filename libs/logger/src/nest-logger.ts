import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';

/**
 * The contexts NestJS itself logs from while it boots (module wiring, one line per route). At debug
 * they would bury what an operator looks for (`npm start` runs at debug to show each run), so they
 * are trace; their warnings and errors keep their level.
 */
const NEST_BOOT_CONTEXTS: ReadonlySet<string> = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

/** Routes NestJS's own log lines (module init, routes, errors) into the same pino stream. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.chatter(message, context);
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.chatter(message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }

  private chatter(message: unknown, context?: string): void {
    if (context !== undefined && NEST_BOOT_CONTEXTS.has(context)) this.logger.trace({ context }, String(message));
    else this.logger.debug({ context }, String(message));
  }
}
