import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Redis } from 'ioredis';
import type { INestApplicationContext } from '@nestjs/common';
import { testRedisClient, testRedisUrl, uniquePrefix, waitFor } from '@drover/testing';
import { DroverClient } from './drover-client.service';
import { DroverModule } from './drover.module';
import { InvalidOptionsError } from '@drover/core';
import { defineQueues, startProducer, startWorker } from '../test/client-test-harness';

/** Names of the Redis connections whose client name starts with `drover:<name>:`. */
async function connectionsNamed(reader: Redis, name: string): Promise<string[]> {
  const list = (await reader.client('LIST')) as string;
  return [...list.matchAll(/ name=(\S*)/g)].map((m) => m[1]!).filter((n) => n.startsWith(`drover:${name}:`));
}

const SETTINGS = Symbol('settings');

@Module({ providers: [{ provide: SETTINGS, useFactory: () => ({ url: testRedisUrl() }) }], exports: [SETTINGS] })
class SettingsModule {}

@Injectable()
class ReportsService {
  constructor(readonly drover: DroverClient) {}
}

@Module({ providers: [ReportsService] })
class ReportsModule {}

describe('DroverModule in a NestJS app', () => {
  let prefix: string;
  let worker: INestApplicationContext;
  let reader: Redis;

  beforeAll(async () => {
    prefix = uniquePrefix('module');
    await defineQueues(prefix, [{ name: 'default' }]);
    worker = await startWorker(prefix);
    reader = testRedisClient();
  });

  afterAll(async () => {
    await worker?.close();
    reader?.disconnect();
  });

  it('forRootAsync with imports and inject, global: a feature module injects the client without importing it', async () => {
    @Module({
      imports: [
        DroverModule.forRootAsync({
          isGlobal: true,
          imports: [SettingsModule],
          inject: [SETTINGS],
          useFactory: (s: { url: string }) => ({ redis: { url: s.url }, prefix, name: 'async-api' }),
        }),
        ReportsModule,
      ],
    })
    class AppModule {}
    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    try {
      const drover = app.get(ReportsService).drover;
      expect(drover).toBeInstanceOf(DroverClient);
      const id = await drover.enqueue('test.echo', { via: 'async' });
      expect(await drover.waitForRun(id, { timeoutMs: 15_000 })).toMatchObject({
        status: 'succeeded',
        createdBy: 'async-api',
      });
    } finally {
      await app.close();
    }
  });

  it('is not global unless asked: a module that does not import it cannot inject the client', async () => {
    // A borrowed client, so the failed boot leaves no connection of Drover's behind.
    const own = new Redis(testRedisUrl(), { lazyConnect: true });
    @Module({ imports: [DroverModule.forRoot({ redis: { client: own }, prefix }), ReportsModule] })
    class AppModule {}
    try {
      await expect(
        NestFactory.createApplicationContext(AppModule, { logger: false, abortOnError: false }),
      ).rejects.toThrow(/DroverClient/);
    } finally {
      own.disconnect();
    }
  });

  it('fails the boot with one message naming every bad option', async () => {
    @Module({
      imports: [
        DroverModule.forRoot({
          redis: 'http://user:secret@127.0.0.1:6379',
          prefix: 'has space',
          defaultQueue: 'Default',
          nope: 1,
        } as never),
      ],
    })
    class AppModule {}
    const err = await NestFactory.createApplicationContext(AppModule, { logger: false, abortOnError: false }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InvalidOptionsError);
    const message = (err as Error).message;
    expect(message).toMatch(/^invalid DroverModule options: /);
    expect(message).toContain('unknown option "nope"');
    expect(message).toContain('redis: scheme "http:" is not redis: or rediss: (TLS)');
    expect(message).toContain('prefix: "has space" may only hold');
    expect(message).toContain('defaultQueue: "Default" is not a queue name');
    expect(message).not.toContain('secret');
  });

  it('closes the connections it opened on shutdown', async () => {
    const { app, client } = await startProducer({ redis: testRedisUrl(), prefix, name: 'owned-api' });
    const id = await client.enqueue('test.echo', {});
    await client.waitForRun(id, { timeoutMs: 15_000 }); // opens the queue's event reader too
    expect((await connectionsNamed(reader, 'owned-api')).sort()).toEqual([
      'drover:owned-api:cmd',
      'drover:owned-api:events:default',
      // Told when queue policies change, so enqueue need not read them (QueuePolicyCache).
      'drover:owned-api:policy-sub',
    ]);
    await app.close();
    await waitFor('owned connections to close', async () => (await connectionsNamed(reader, 'owned-api')).length === 0);
  });

  it('never closes an ioredis client the app passed in, and closes the duplicates it made', async () => {
    const own = new Redis(testRedisUrl(), { connectionName: 'app-own-client' });
    try {
      const { app, client } = await startProducer({ redis: { client: own }, prefix, name: 'borrow-api' });
      const id = await client.enqueue('test.echo', { borrowed: true });
      expect(await client.waitForRun(id, { timeoutMs: 15_000 })).toMatchObject({ status: 'succeeded' });
      expect((await connectionsNamed(reader, 'borrow-api')).sort()).toEqual([
        'drover:borrow-api:events:default',
        'drover:borrow-api:policy-sub',
      ]);
      await app.close();
      await waitFor('duplicates to close', async () => (await connectionsNamed(reader, 'borrow-api')).length === 0);
      expect(own.status).toBe('ready');
      expect(await own.ping()).toBe('PONG');
    } finally {
      own.disconnect();
    }
  });

  it('refuses a client with a keyPrefix, which BullMQ cannot use', async () => {
    const prefixed = new Redis(testRedisUrl(), { keyPrefix: 'app:', lazyConnect: true });
    try {
      await expect(startProducer({ redis: { client: prefixed }, prefix })).rejects.toThrow(
        /redis.client: the client has keyPrefix "app:".*use the `prefix` option instead/,
      );
    } finally {
      prefixed.disconnect();
    }
  });
});
