import 'reflect-metadata';
import { type INestApplicationContext, Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { z } from 'zod';
import { loadAppConfig } from '@drover/config';
import { defineJob, type QueueInput } from '@drover/core';
import { createLogger } from '@drover/logger';
import { PlatformModule } from '@drover/platform';
import { SystemClock } from '@drover/redis';
import { testRedisUrl, testStores } from '@drover/testing';
import {
  JobHandler,
  WorkerRuntime,
  WorkerRuntimeModule,
  type JobContext,
  type PayloadOf,
} from '@drover/worker-runtime';
import { DroverClient } from '../src/drover-client.service';
import { DroverModule } from '../src/drover.module';
import type { DroverModuleOptions } from '../src/drover-options';

/** The contract the int tests share between producer and handler, as a team would. */
export const reportsGenerate = defineJob('reports.generate', {
  payload: z.strictObject({
    month: z.string().regex(/^\d{4}-\d{2}$/, { message: 'must be a month like "2026-01"' }),
    format: z.enum(['pdf', 'csv']).default('pdf'),
  }),
  result: z.object({ url: z.string(), rows: z.number() }),
  queue: 'reports',
});

/** Every handler start the in-process worker saw: the test's record of what really ran. */
export const starts: { id: string; jobType: string; at: number; attempt: number }[] = [];

/** Runs a `test.gate` run holds until the test opens its gate (or the run is aborted). */
const gates = new Map<string, { started: Promise<void>; markStarted(): void; open(): void; opened: Promise<void> }>();
export function gate(id: string) {
  let g = gates.get(id);
  if (!g) {
    let markStarted!: () => void;
    let open!: () => void;
    const started = new Promise<void>((r) => (markStarted = r));
    const opened = new Promise<void>((r) => (open = r));
    g = { started, markStarted, open, opened };
    gates.set(id, g);
  }
  return g;
}

function recordStart(ctx: JobContext): void {
  starts.push({ id: ctx.run.id, jobType: ctx.run.jobType, at: new SystemClock().now(), attempt: ctx.run.attempt });
}

@JobHandler(reportsGenerate)
class ReportsHandler {
  handle({ month, format }: PayloadOf<typeof reportsGenerate>, ctx: JobContext) {
    recordStart(ctx);
    return { url: `http://127.0.0.1/reports/${month}.${format}`, rows: 3 };
  }
}

@JobHandler('test.echo')
class EchoHandler {
  handle(payload: unknown, ctx: JobContext) {
    recordStart(ctx);
    return { echo: payload };
  }
}

@JobHandler('test.gate')
class GateHandler {
  async handle(_: unknown, ctx: JobContext) {
    recordStart(ctx);
    const g = gate(ctx.run.id);
    g.markStarted();
    await new Promise<void>((resolve, reject) => {
      void g.opened.then(resolve);
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error));
    });
    return 'opened';
  }
}

@Module({ providers: [ReportsHandler, EchoHandler, GateHandler] })
class TestHandlers {}

/** Queue policies in Redis, as the scheduler writes them from the policy file. */
export async function defineQueues(prefix: string, queues: QueueInput[]): Promise<void> {
  const stores = testStores('test-setup', { prefix });
  try {
    await stores.registry.put(queues);
  } finally {
    await stores.close();
  }
}

/** A worker runtime in this process (the real one: BullMQ workers, policies, cancel channel). */
export async function startWorker(prefix: string): Promise<INestApplicationContext> {
  const config = loadAppConfig(
    'worker',
    {},
    { REDIS_URL: testRedisUrl(), DROVER_PREFIX: prefix, DROVER_INSTANCE_ID: 'client-test-worker', LOG_LEVEL: 'silent' },
  );
  const logger = createLogger({ app: 'worker', instanceId: config.env.instanceId, level: 'silent', format: 'json' });
  @Module({ imports: [PlatformModule.forRoot(config, logger), WorkerRuntimeModule.forRoot(), TestHandlers] })
  class WorkerModule {}
  const app = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
  await app.get(WorkerRuntime).consuming;
  return app;
}

/** A producer app: nothing but DroverModule, as a team's service would have. */
export async function startProducer(
  options: DroverModuleOptions | DynamicModule,
): Promise<{ app: INestApplicationContext; client: DroverClient }> {
  const imported = 'module' in options ? (options as DynamicModule) : DroverModule.forRoot(options);
  @Module({ imports: [imported] })
  class ProducerModule {}
  const app = await NestFactory.createApplicationContext(ProducerModule, { logger: false, abortOnError: false });
  return { app, client: app.get(DroverClient) };
}
