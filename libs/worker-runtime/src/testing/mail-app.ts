/**
 * A small app written the plain @nestjs/bullmq way — a `@Processor` extending `WorkerHost`, an
 * `@InjectQueue` producer, `BullModule.registerQueue` — that the int tests boot twice: as it is
 * (`plainApp`, on @nestjs/bullmq's own Worker) and switched to Drover by changing the root
 * module's imports only (`droverApp`). Nothing in MailModule knows about Drover.
 */
import 'reflect-metadata';
import { BullModule, InjectQueue, OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { type INestApplicationContext, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Job, Queue } from 'bullmq';
import { loadAppConfig } from '@drover/config';
import { createLogger } from '@drover/logger';
import { PlatformModule } from '@drover/platform';
import { testRedisUrl } from '@drover/testing';
import { WorkerRuntime } from '../worker-runtime.service';
import { DroverBullModule } from '../bullmq/drover-bull.module';

/** What the processor saw, for the tests to read. */
export const seen = {
  jobs: [] as { id?: string; name: string; data: unknown; attemptsMade: number; at: number }[],
  completed: [] as string[],
  active: 0,
  maxActive: 0,
};

export function resetSeen(): void {
  seen.jobs = [];
  seen.completed = [];
  seen.active = seen.maxActive = 0;
}

// Its own worker options stay as they were: under Drover the queue's policy decides them.
@Processor('mail', { concurrency: 10 })
export class MailProcessor extends WorkerHost {
  async process(job: Job<{ to: string; ms?: number }>): Promise<{ sent: string }> {
    seen.jobs.push({ id: job.id, name: job.name, data: job.data, attemptsMade: job.attemptsMade, at: Date.now() });
    seen.maxActive = Math.max(seen.maxActive, ++seen.active);
    try {
      await job.updateProgress(50);
      await job.log(`sending to ${job.data.to}`);
      if (job.data.ms) await new Promise((r) => setTimeout(r, job.data.ms));
      if (job.name === 'bounce') throw new Error(`mailbox of ${job.data.to} is full`);
      return { sent: job.data.to };
    } finally {
      seen.active--;
    }
  }

  @OnWorkerEvent('completed')
  onCompleted(job: Job): void {
    seen.completed.push(job.id!);
  }
}

@Injectable()
export class MailProducer {
  constructor(@InjectQueue('mail') readonly queue: Queue) {}

  send(name: string, to: string, ms?: number): Promise<Job> {
    return this.queue.add(name, { to, ...(ms !== undefined && { ms }) });
  }
}

@Module({ imports: [BullModule.registerQueue({ name: 'mail' })], providers: [MailProcessor, MailProducer] })
export class MailModule {}

/** The app before the switch: BullModule.forRoot on the same Redis and key prefix. */
export function plainApp(prefix: string): Promise<INestApplicationContext> {
  @Module({ imports: [BullModule.forRoot({ connection: { url: testRedisUrl() }, prefix }), MailModule] })
  class PlainAppModule {}
  return NestFactory.createApplicationContext(PlainAppModule, { logger: false });
}

/** The app after the switch: Drover's platform and DroverBullModule instead of BullModule.forRoot. */
export async function droverApp(prefix: string): Promise<INestApplicationContext> {
  const config = loadAppConfig(
    'worker',
    {},
    { REDIS_URL: testRedisUrl(), DROVER_PREFIX: prefix, DROVER_INSTANCE_ID: 'mail-worker', LOG_LEVEL: 'silent' },
  );
  const logger = createLogger({ app: 'worker', instanceId: 'mail-worker', level: 'silent', format: 'json' });
  @Module({ imports: [PlatformModule.forRoot(config, logger), DroverBullModule.forRoot(), MailModule] })
  class DroverAppModule {}
  const app = await NestFactory.createApplicationContext(DroverAppModule, { logger: false });
  await app.get(WorkerRuntime).consuming;
  return app;
}
