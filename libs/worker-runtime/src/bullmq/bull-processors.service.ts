import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { Job, Worker } from 'bullmq';
import type { Logger } from 'pino';
import { LOGGER } from '@drover/logger';
import type { HandlerContext } from '../handler-context';
import { HandlerRegistry } from '../handler-registry.service';
import { processorMetaOf, workerEventOf } from './processor-metadata';
import { processorJob } from './processor-job';

/** What a `@Processor` class is: @nestjs/bullmq's `WorkerHost` (`process(job, token)`). */
interface ProcessorInstance {
  process(job: Job, token?: string): unknown;
  [method: string]: unknown;
}

/** Worker options a processor may carry that Drover's queue policy decides instead. */
const POLICY_OPTIONS = ['concurrency', 'limiter', 'lockDuration', 'stalledInterval', 'maxStalledCount'];

/**
 * Finds every @nestjs/bullmq `@Processor` class and makes it the handler of every job of its queue
 * in the worker runtime: the processor's `process(job)` runs under Drover's ceilings, leases,
 * retries, parking, metrics and drain. @nestjs/bullmq's own Worker for it is never made
 * (DroverBullModule registers BullModule with `manualRegistration`). Its `@OnWorkerEvent` methods
 * listen on the runtime's BullMQ Worker of the queue, and `this.worker` is that Worker.
 */
@Injectable()
export class BullProcessors implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly handlers: HandlerRegistry,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders()) {
      // A useValue/useFactory provider has no class of its own: its instance's constructor is it.
      const type: unknown = !wrapper.metatype || wrapper.inject ? wrapper.instance?.constructor : wrapper.metatype;
      const meta = processorMetaOf(this.reflector, type);
      if (!meta) continue;
      const name = (type as { name?: string }).name ?? String(wrapper.name);
      if (!wrapper.isDependencyTreeStatic()) {
        throw new Error(
          `@Processor('${meta.queue}') class ${name} is request-scoped; Drover runs processors as singletons`,
        );
      }
      const instance = wrapper.instance as ProcessorInstance | undefined;
      if (typeof instance?.process !== 'function') {
        throw new Error(`@Processor('${meta.queue}') class ${name} has no process(job) method (extend WorkerHost)`);
      }
      const ignored = POLICY_OPTIONS.filter((o) => o in meta.workerOptions);
      if (ignored.length) {
        this.log.warn(
          { queue: meta.queue, processor: name, options: ignored },
          `@Processor('${meta.queue}') worker options ${ignored.join(', ')} are ignored: the queue's policy decides them`,
        );
      }
      this.handlers.registerQueueHandler(meta.queue, {
        meta: { jobType: `${meta.queue}:*` },
        name,
        instance: {
          handle: (payload, ctx) => {
            const { job, token } = ctx as HandlerContext;
            return instance.process(processorJob(job, payload), token);
          },
        },
        attach: (worker) => this.attach(instance, worker),
      });
    }
  }

  /** `this.worker` of the processor, and its `@OnWorkerEvent` methods, on the runtime's Worker. */
  private attach(instance: ProcessorInstance, worker: Worker): void {
    // WorkerHost keeps its Worker in `_worker` (@nestjs/bullmq's explorer sets it the same way).
    Object.defineProperty(instance, '_worker', { value: worker, configurable: true, writable: true });
    for (const key of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
      const event = workerEventOf(this.reflector, instance[key]);
      if (event) worker.on(event as 'completed', (instance[key] as (...args: unknown[]) => unknown).bind(instance));
    }
  }
}
