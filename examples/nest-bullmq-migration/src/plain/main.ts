// The app before the switch, the plain @nestjs/bullmq way: BullModule.forRoot + MailModule.
//
//   node dist/src/plain/main.js welcome:ada bounce:bob     add the jobs, process them, print how they ended
//   node dist/src/plain/main.js --produce-only welcome:ada  only add them (a producer-only deployment: no Worker)
import 'reflect-metadata';
import { BullModule } from '@nestjs/bullmq';
import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MailModule } from '../mail/mail.module';
import { MailProducer } from '../mail/mail.producer';

@Module({})
class PlainAppModule {
  static forRoot(consume: boolean): DynamicModule {
    return {
      module: PlainAppModule,
      imports: [
        BullModule.forRoot({
          connection: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
          // No Worker in a deployment that only produces.
          extraOptions: { manualRegistration: !consume },
        }),
        MailModule,
      ],
    };
  }
}

async function main(): Promise<void> {
  const consume = !process.argv.includes('--produce-only');
  const jobs = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const app = await NestFactory.createApplicationContext(PlainAppModule.forRoot(consume), { logger: ['error'] });
  try {
    const producer = app.get(MailProducer);
    for (const spec of jobs) {
      const [name = 'welcome', to = 'nobody'] = spec.split(':');
      const job = await producer.send(name, `${to}@example.com`);
      console.log(`added ${job.name} ${job.id}`);
      if (!consume) continue;
      for (;;) {
        const state = await producer.queue.getJobState(job.id!);
        if (state === 'completed' || state === 'failed') {
          const done = await producer.queue.getJob(job.id!);
          console.log(`${state} ${job.name} ${job.id}: ${JSON.stringify(done?.returnvalue ?? done?.failedReason)}`);
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  } finally {
    await app.close();
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
