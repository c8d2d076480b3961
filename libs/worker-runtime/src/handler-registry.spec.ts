import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { DiscoveryModule, NestFactory } from '@nestjs/core';
import { z } from 'zod';
import { DuplicateHandlerError } from './errors/duplicate-handler.error';
import { defineJob } from './job-contract';
import { JobHandler } from './job-handler.decorator';
import { HandlerRegistry } from './handler-registry.service';

const reportsGenerate = defineJob('reports.generate', { payload: z.object({ month: z.string() }) });

@JobHandler(reportsGenerate, { timeoutMs: 5_000 })
class ReportsHandler {
  handle() {
    return 'ok';
  }
}

@JobHandler('reports.generate')
class OtherReportsHandler {
  handle() {
    return 'other';
  }
}

@JobHandler('broken')
class NoHandleMethod {}

async function boot(providers: unknown[]) {
  @Module({ imports: [DiscoveryModule], providers: [HandlerRegistry, ...(providers as never[])] })
  class TestModule {}
  return NestFactory.createApplicationContext(TestModule, { logger: false, abortOnError: false });
}

describe('HandlerRegistry', () => {
  it('finds @JobHandler providers with their contract and options', async () => {
    const app = await boot([ReportsHandler]);
    const registry = app.get(HandlerRegistry);
    expect(registry.jobTypes()).toEqual(['reports.generate']);
    const found = registry.get('reports.generate')!;
    expect(found.name).toBe('ReportsHandler');
    expect(found.meta.timeoutMs).toBe(5_000);
    expect(found.meta.payload?.safeParse({ month: '2026-01' }).success).toBe(true);
    await app.close();
  });

  it('refuses to boot when a job type has two handlers, naming both', async () => {
    const booting = boot([ReportsHandler, OtherReportsHandler]);
    await expect(booting).rejects.toThrow(DuplicateHandlerError);
    await expect(boot([ReportsHandler, OtherReportsHandler])).rejects.toThrow(
      'job type "reports.generate" has 2 handlers (ReportsHandler, OtherReportsHandler); a job type needs exactly one',
    );
  });

  it('refuses a handler class without handle()', async () => {
    await expect(boot([NoHandleMethod])).rejects.toThrow(/class NoHandleMethod has no handle\(payload, ctx\) method/);
  });
});
