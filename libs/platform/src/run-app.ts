import 'reflect-metadata';
import { type DynamicModule, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Logger } from 'pino';
import { type AppConfig, loadAppConfigOrExit } from '@drover/config';
import { createLogger, NestPinoLogger } from '@drover/logger';
import { RedisConnections, SystemClock } from '@drover/redis';
import { nodeLineWarning } from './node-support';
import { ReadinessRegistry } from './readiness.registry';
import { securityHeaders } from './security-headers';

export interface AppSpec {
  /** App name as in the README (`scheduler`, `worker`, `api`, `standalone`). */
  name: string;
  defaultPort: number;
  /** Builds the root module from validated config; the platform module is included by the app. */
  module: (config: AppConfig, logger: Logger) => DynamicModule;
  /** False when the app installs its own body parsers in `configure` (the api caps bodies at 1 MiB). */
  bodyParser?: boolean;
  /** Express middleware to install before Nest's routes. */
  configure?: (app: INestApplication) => void;
}

/**
 * Boots an app: validate config (exit 2 on a bad value), start Nest, listen on all interfaces,
 * and shut down gracefully on SIGTERM/SIGINT with exit code 0.
 */
export async function runApp(spec: AppSpec): Promise<INestApplication> {
  const config = loadAppConfigOrExit(spec.name, { port: spec.defaultPort });
  const { env } = config;
  const logger = createLogger({
    app: spec.name,
    instanceId: env.instanceId,
    level: env.logLevel,
    format: env.logFormat,
  });
  const eol = nodeLineWarning(process.version, new SystemClock().now());
  if (eol) logger.warn({ node: process.version }, eol);
  const app = await NestFactory.create(spec.module(config, logger), {
    logger: new NestPinoLogger(logger),
    bufferLogs: false,
    bodyParser: spec.bodyParser ?? true,
  });
  // Every app's port (api routes, /healthz, /metrics) names no framework and carries the safe headers.
  (app.getHttpAdapter().getInstance() as { disable(setting: string): void }).disable('x-powered-by');
  app.use(securityHeaders());
  spec.configure?.(app);
  installShutdown(app, logger, env.shutdownGraceMs);
  const port = env.port ?? spec.defaultPort;
  try {
    await app.listen(port, '0.0.0.0');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    // The one thing to change is PORT: say so in one line, not with a stack.
    logger.fatal({ port }, `PORT=${port} is taken by another process: stop it or set PORT to a free port`);
    // Already started: hand back the leader lease and any claimed run before going.
    setTimeout(() => process.exit(1), 5_000).unref();
    await app.close().catch(() => undefined);
    logger.flush?.();
    process.exit(1);
  }
  logger.info({ port, redis: env.redis.kind, prefix: env.prefix }, `drover ${spec.name} listening on :${port}`);
  return app;
}

/** Leaves a drain that runs to the end of the grace period time to write its hand-backs first. */
const ABANDON_AFTER_GRACE_MS = 1_000;

async function abandonIfUnreachable(app: INestApplication, logger: Logger): Promise<void> {
  const connections = app.get(RedisConnections);
  try {
    await connections.ping(1_000);
  } catch (err) {
    const dropped = connections.abandon();
    logger.warn(
      { err: (err as Error).message, dropped },
      'Redis unreachable after the grace period: dropping its connections (the leader lease and unfinished runs are left to expire)',
    );
  }
}

function installShutdown(app: INestApplication, logger: Logger, graceMs: number): void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) {
      logger.warn({ signal }, 'second signal during shutdown: exiting now');
      process.exit(1);
    }
    closing = true;
    logger.info({ signal, graceMs }, 'shutting down: no new work, letting in-flight runs finish');
    app.get(ReadinessRegistry).markDraining();
    // Modules wait for in-flight work up to the grace period; this timer is the backstop.
    const backstop = setTimeout(() => {
      logger.error({ graceMs }, 'shutdown exceeded the grace period by 10 s: exiting');
      process.exit(1);
    }, graceMs + 10_000);
    backstop.unref();
    // With Redis unreachable, BullMQ's close() waits for commands that cannot complete; once the
    // grace period is over there is nothing left to wait for, so their connections are dropped.
    const unreachable = setTimeout(
      () => abandonIfUnreachable(app, logger).catch((err: unknown) => logger.warn({ err }, 'could not check Redis')),
      graceMs + ABANDON_AFTER_GRACE_MS,
    );
    unreachable.unref();
    app
      .close()
      .then(() => {
        logger.info('shutdown complete');
        logger.flush?.();
        process.exit(0);
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
