import { type DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { StoreModule } from '@drover/store';
import { HandlerRegistry } from './handler-registry.service';
import { WorkerRuntime } from './worker-runtime.service';
import { WORKER_RUNTIME_OPTIONS, type WorkerRuntimeOptions } from './worker-runtime.options';

/**
 * The worker role. Import it (next to the platform module) in an app whose modules provide
 * `@JobHandler` classes; see docs/worker.md.
 */
@Module({})
export class WorkerRuntimeModule {
  static forRoot(options: WorkerRuntimeOptions = {}): DynamicModule {
    return {
      module: WorkerRuntimeModule,
      imports: [DiscoveryModule, StoreModule],
      providers: [{ provide: WORKER_RUNTIME_OPTIONS, useValue: options }, HandlerRegistry, WorkerRuntime],
      exports: [HandlerRegistry, WorkerRuntime],
    };
  }
}
