import 'reflect-metadata';
import { Module } from '@nestjs/common';
import {
  DiscoveryModule,
  NestFactory,
  type DiscoveryService,
  type MetadataScanner,
  type Reflector,
} from '@nestjs/core';
import { BullQueues, QueueRegistry } from '@drover/store';
import { LaunchTimeoutError } from '../errors/launch-timeout.error';
import { ConditionKindRegistry } from './condition-kind-registry.service';
import { QueueDepthCondition } from './queue-depth.condition';

// Registering by hand needs no Nest discovery.
const nest = [undefined, undefined, undefined] as unknown as [DiscoveryService, MetadataScanner, Reflector];
const fire = { routine: 'r', slot: 0, payload: {} };
const http = { kind: 'http', url: 'http://127.0.0.1:9/gate' } as const;

describe('ConditionKindRegistry', () => {
  it('finds the queue-depth evaluator by discovery, as the scheduler module provides it', async () => {
    @Module({
      imports: [DiscoveryModule],
      providers: [
        ConditionKindRegistry,
        QueueDepthCondition,
        { provide: BullQueues, useValue: {} },
        { provide: QueueRegistry, useValue: {} },
      ],
    })
    class TestModule {}
    const app = await NestFactory.createApplicationContext(TestModule, { logger: false, abortOnError: false });
    try {
      expect(app.get(ConditionKindRegistry).names()).toEqual(['queue-depth']);
    } finally {
      await app.close();
    }
  });

  it('fails a kind nobody registered, naming it', async () => {
    await expect(new ConditionKindRegistry(...nest).evaluate({ ...fire, condition: http }, 1_000)).rejects.toThrow(
      'no condition kind named "http" is registered in this scheduler',
    );
  });

  it('hands the evaluator the condition, and names the condition when it times out or answers no boolean', async () => {
    const kinds = new ConditionKindRegistry(...nest);
    let seen: unknown;
    kinds.register('http', ({ condition, signal }) => {
      seen = condition;
      return new Promise<boolean>((_, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason as Error)),
      );
    });
    const err = await kinds.evaluate({ ...fire, condition: http }, 50).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LaunchTimeoutError);
    expect((err as Error).message).toBe('condition "http GET http://127.0.0.1:9/gate" did not answer within 50 ms');
    expect(seen).toEqual(http);
    kinds.register('queue-depth', () => 'yes' as unknown as boolean);
    await expect(
      kinds.evaluate({ ...fire, condition: { kind: 'queue-depth', queue: 'q', below: 1 } }, 1_000),
    ).rejects.toThrow('condition "queue-depth q < 1" returned string, not a boolean');
  });
});
