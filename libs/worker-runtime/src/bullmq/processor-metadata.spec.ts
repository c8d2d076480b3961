import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Reflector } from '@nestjs/core';
import { processorMetaOf, workerEventOf } from './processor-metadata';

@Processor('mail', { concurrency: 7 })
class MailProcessor extends WorkerHost {
  process(): Promise<void> {
    return Promise.resolve();
  }

  @OnWorkerEvent('completed')
  onCompleted(): void {}
}

@Processor({ name: 'sms' })
class SmsProcessor extends WorkerHost {
  process(): Promise<void> {
    return Promise.resolve();
  }
}

class NotAProcessor {}

describe("reading @nestjs/bullmq's decorators", () => {
  const reflector = new Reflector();

  it('finds the queue and worker options of a @Processor class, by name or by options', () => {
    expect(processorMetaOf(reflector, MailProcessor)).toEqual({ queue: 'mail', workerOptions: { concurrency: 7 } });
    expect(processorMetaOf(reflector, SmsProcessor)).toEqual({ queue: 'sms', workerOptions: {} });
  });

  it('answers undefined for a class without @Processor, and for no class', () => {
    expect(processorMetaOf(reflector, NotAProcessor)).toBeUndefined();
    expect(processorMetaOf(reflector, undefined)).toBeUndefined();
  });

  it('finds the event an @OnWorkerEvent method listens to', () => {
    expect(workerEventOf(reflector, MailProcessor.prototype.onCompleted)).toBe('completed');
    expect(workerEventOf(reflector, MailProcessor.prototype.process)).toBeUndefined();
  });
});
