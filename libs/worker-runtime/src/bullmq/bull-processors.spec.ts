import 'reflect-metadata';
import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Module, Scope } from '@nestjs/common';
import { DiscoveryModule, NestFactory } from '@nestjs/core';
import pino from 'pino';
import { LOGGER } from '@drover/logger';
import { HandlerRegistry } from '../handler-registry.service';
import { JobHandler } from '../job-handler.decorator';
import { BullProcessors } from './bull-processors.service';

@Processor('mail')
class MailProcessor extends WorkerHost {
  process(): Promise<string> {
    return Promise.resolve('sent');
  }
}

@Processor('mail')
class OtherMailProcessor extends WorkerHost {
  process(): Promise<string> {
    return Promise.resolve('sent too');
  }
}

@Processor({ name: 'sms', scope: Scope.REQUEST })
class ScopedSmsProcessor extends WorkerHost {
  process(): Promise<void> {
    return Promise.resolve();
  }
}

@Processor('push')
class NoProcessMethod {}

@JobHandler('welcome')
class WelcomeHandler {
  handle() {
    return 'handled';
  }
}

async function boot(providers: unknown[]) {
  @Module({
    imports: [DiscoveryModule],
    providers: [
      HandlerRegistry,
      BullProcessors,
      { provide: LOGGER, useValue: pino({ level: 'silent' }) },
      ...(providers as never[]),
    ],
  })
  class TestModule {}
  return NestFactory.createApplicationContext(TestModule, { logger: false, abortOnError: false });
}

describe('BullProcessors', () => {
  it("makes a @Processor the handler of every job of its queue; other queues keep their job types' handlers", async () => {
    const app = await boot([MailProcessor, WelcomeHandler]);
    const registry = app.get(HandlerRegistry);
    expect(registry.queues()).toEqual(['mail']);
    expect(registry.forJob('mail', 'welcome')?.name).toBe('MailProcessor');
    expect(registry.forJob('mail', 'anything')?.name).toBe('MailProcessor');
    expect(registry.forJob('default', 'welcome')?.name).toBe('WelcomeHandler');
    expect(registry.forJob('default', 'anything')).toBeUndefined();
    await app.close();
  });

  it('refuses two processors of one queue, naming both', async () => {
    await expect(boot([MailProcessor, OtherMailProcessor])).rejects.toThrow(
      'queue "mail" has 2 processors (MailProcessor, OtherMailProcessor); a queue needs exactly one',
    );
  });

  it('refuses a request-scoped processor and one without process(job)', async () => {
    await expect(boot([ScopedSmsProcessor])).rejects.toThrow(/class ScopedSmsProcessor is request-scoped/);
    await expect(boot([NoProcessMethod])).rejects.toThrow(/class NoProcessMethod has no process\(job\) method/);
  });
});
