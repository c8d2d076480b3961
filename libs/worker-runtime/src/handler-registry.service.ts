import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { DuplicateHandlerError } from './errors/duplicate-handler.error';
import type { JobHandlerInterface } from './job-context';
import { JobHandlerMarker, type JobHandlerMeta } from './job-handler.decorator';

/** A discovered handler. */
export interface RegisteredHandler {
  meta: JobHandlerMeta;
  instance: JobHandlerInterface;
  /** The class name, for logs and boot errors. */
  name: string;
}

/**
 * Finds every `@JobHandler` provider at module init. Boot fails with a message naming the job
 * type and both classes when a job type has two handlers, or when a handler has no `handle`.
 */
@Injectable()
export class HandlerRegistry implements OnModuleInit {
  private readonly byType = new Map<string, RegisteredHandler>();

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    const found = new Map<string, (RegisteredHandler & { type?: unknown })[]>();
    for (const wrapper of this.discovery.getProviders({ metadataKey: JobHandlerMarker.KEY })) {
      const meta = this.discovery.getMetadataByDecorator(JobHandlerMarker, wrapper);
      const instance = wrapper.instance as JobHandlerInterface | undefined;
      if (!meta || !instance) continue;
      const name = wrapper.metatype?.name ?? String(wrapper.name);
      if (typeof instance.handle !== 'function') {
        throw new Error(`@JobHandler('${meta.jobType}') class ${name} has no handle(payload, ctx) method`);
      }
      found.set(meta.jobType, [...(found.get(meta.jobType) ?? []), { meta, instance, name, type: wrapper.metatype }]);
    }
    for (const [jobType, handlers] of found) {
      // The same class provided by two modules is still one handler.
      const distinct = [...new Map(handlers.map((h) => [h.type ?? h.instance, h])).values()];
      if (distinct.length > 1)
        throw new DuplicateHandlerError(
          jobType,
          distinct.map((h) => h.name),
        );
      const { meta, instance, name } = distinct[0]!;
      this.byType.set(jobType, { meta, instance, name });
    }
  }

  get(jobType: string): RegisteredHandler | undefined {
    return this.byType.get(jobType);
  }

  jobTypes(): string[] {
    return [...this.byType.keys()].sort();
  }
}
