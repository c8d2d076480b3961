import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { Worker } from 'bullmq';
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
 * A handler of every job of one queue, whatever the job's name: how a @nestjs/bullmq processor
 * works (see DroverBullModule). `attach` is handed each BullMQ Worker the runtime makes for the
 * queue (a policy change makes a new one), e.g. to route the processor's worker events.
 */
export interface QueueHandler extends RegisteredHandler {
  attach?(worker: Worker): void;
}

/**
 * Finds every `@JobHandler` provider at module init. Boot fails with a message naming the job
 * type and both classes when a job type has two handlers, or when a handler has no `handle`.
 */
@Injectable()
export class HandlerRegistry implements OnModuleInit {
  private readonly byType = new Map<string, RegisteredHandler>();
  private readonly byQueue = new Map<string, QueueHandler>();

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

  /** Makes `handler` take every job of `queue`; a queue has at most one. */
  registerQueueHandler(queue: string, handler: QueueHandler): void {
    const current = this.byQueue.get(queue);
    if (current && current.instance !== handler.instance) {
      throw new Error(
        `queue "${queue}" has 2 processors (${current.name}, ${handler.name}); a queue needs exactly one`,
      );
    }
    this.byQueue.set(queue, handler);
  }

  /** The queue's handler, if it has one (it takes every job there), else the job type's. */
  forJob(queue: string, jobType: string): RegisteredHandler | undefined {
    return this.byQueue.get(queue) ?? this.byType.get(jobType);
  }

  /** The handler of every job of `queue`, if one was registered. */
  forQueue(queue: string): QueueHandler | undefined {
    return this.byQueue.get(queue);
  }

  /** Queues that have a handler of their own, sorted. */
  queues(): string[] {
    return [...this.byQueue.keys()].sort();
  }

  jobTypes(): string[] {
    return [...this.byType.keys()].sort();
  }
}
