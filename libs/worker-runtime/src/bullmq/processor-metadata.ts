import type { Reflector } from '@nestjs/core';

/**
 * The metadata keys @nestjs/bullmq's decorators write (`@Processor`, its worker options,
 * `@OnWorkerEvent`). The package exports neither its constants nor its metadata accessor, so they
 * are named here; processor-metadata.spec.ts decorates classes with the package's own decorators
 * and fails if a release renames them.
 */
const PROCESSOR_METADATA = 'bullmq:processor_metadata';
const WORKER_METADATA = 'bullmq:worker_metadata';
const ON_WORKER_EVENT_METADATA = 'bullmq:worker_events_metadata';

/** What `@Processor(nameOrOptions, workerOptions?)` says about a class. */
export interface ProcessorMeta {
  /** The queue it processes. */
  queue: string;
  /** Its BullMQ worker options (concurrency, limiter, ...): under Drover the queue's policy rules. */
  workerOptions: Record<string, unknown>;
}

/** The processor metadata of a class, or undefined when it is not a `@Processor`. */
export function processorMetaOf(reflector: Reflector, target: unknown): ProcessorMeta | undefined {
  if (typeof target !== 'function') return undefined;
  const meta = reflector.get<{ name?: string } | undefined>(PROCESSOR_METADATA, target);
  if (!meta) return undefined;
  return {
    queue: meta.name ?? 'default',
    workerOptions: reflector.get<Record<string, unknown> | undefined>(WORKER_METADATA, target) ?? {},
  };
}

/** The worker event a method listens to (`@OnWorkerEvent('completed')`), if any. */
export function workerEventOf(reflector: Reflector, method: unknown): string | undefined {
  if (typeof method !== 'function') return undefined;
  return reflector.get<{ eventName: string } | undefined>(ON_WORKER_EVENT_METADATA, method)?.eventName;
}
