// A team's own worker app, built the way docs/worker.md shows (the worker package's API: JobHandler,
// JobContext, PlatformModule, WorkerRuntimeModule, runApp), with one handler that resumes from its
// checkpoint. The checkpoint e2e compiles it with swc next to the built libraries (dist/) and runs it
// as a real process: `node dist/test/worker/support/checkpoint-worker.app.js`.
import { setTimeout as sleep } from 'node:timers/promises';
import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '@drover/config';
import { PlatformModule, runApp } from '@drover/platform';
import { JobHandler, WorkerRuntimeModule, type JobContext, type JobHandlerInterface } from '@drover/worker-runtime';

/** Items `0..items-1`, each POSTed to `receiver` as `{run, item, attempt, from}`, a checkpoint after every `every`th. */
export interface ItemsPayload {
  items: number;
  every: number;
  receiver: string;
  /** A pause after each item, so a test can stop the worker in the middle. */
  delayMs: number;
}

@JobHandler('items.process')
export class ItemsHandler implements JobHandlerInterface<ItemsPayload, { from: number }, { next: number }> {
  async handle(p: ItemsPayload, ctx: JobContext<{ next: number }>) {
    const from = ctx.lastCheckpoint?.next ?? 0;
    for (let item = from; item < p.items; item++) {
      const res = await fetch(p.receiver, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-drover-run-id': ctx.run.id },
        body: JSON.stringify({ run: ctx.run.id, item, attempt: ctx.run.attempt, from }),
        signal: ctx.signal,
      });
      if (!res.ok) throw new Error(`the receiver answered ${res.status} for item ${item}`);
      if ((item + 1) % p.every === 0) await ctx.checkpoint({ next: item + 1 });
      await sleep(p.delayMs, undefined, { signal: ctx.signal });
    }
    return { from };
  }
}

@Module({})
class CheckpointWorkerModule {
  static forRoot(config: AppConfig, logger: Parameters<typeof PlatformModule.forRoot>[1]): DynamicModule {
    return {
      module: CheckpointWorkerModule,
      imports: [PlatformModule.forRoot(config, logger), WorkerRuntimeModule.forRoot()],
      providers: [ItemsHandler],
    };
  }
}

void runApp({ name: 'worker', defaultPort: 3002, module: CheckpointWorkerModule.forRoot });
