import type { Logger } from 'pino';

/**
 * `ctx.log`: called, it writes a line to the run's log (kept with the run, shown by the api,
 * `drover runs logs` and the console); its pino methods (`ctx.log.info(...)`) write to the
 * worker's own log, bound to the run.
 */
export interface RunLogger extends Logger {
  (message: string, fields?: Record<string, unknown>): void;
}

/**
 * The write function, with `logger` as its prototype: pino's methods read their state through
 * `this`, and pino itself makes child loggers by prototype, so they work on it unchanged.
 */
export function runLogger(
  logger: Logger,
  write: (message: string, fields?: Record<string, unknown>) => void,
): RunLogger {
  const log = (message: string, fields?: Record<string, unknown>) => write(message, fields);
  return Object.setPrototypeOf(log, logger) as RunLogger;
}
