import pino, { type Logger } from 'pino';
import type { LogFormat, LogLevel } from '@drover/config';

export type { Logger } from 'pino';

/**
 * Structured JSON logs by default (what log shippers want); `pretty` for a person at a terminal.
 * Every line carries the app and instance so logs from a cluster can be told apart.
 */
export function createLogger(opts: { app: string; instanceId: string; level: LogLevel; format: LogFormat }): Logger {
  const base = { app: opts.app, instance: opts.instanceId };
  if (opts.format === 'pretty') {
    return pino({
      level: opts.level,
      base,
      transport: {
        target: 'pino-pretty',
        options: {
          colorize: process.stdout.isTTY,
          translateTime: 'HH:MM:ss.l',
          ignore: 'pid,hostname,instance',
          singleLine: true,
          sync: true,
        },
      },
    });
  }
  return pino({ level: opts.level, base, timestamp: pino.stdTimeFunctions.isoTime });
}
