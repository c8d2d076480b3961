/**
 * The int tests' worker runtime harness: test handlers (echo, fail, permanent, typed, block, count), a
 * producer's stores and a real WorkerRuntime in this process on a real Redis.
 */
import 'reflect-metadata';
import { type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Logger } from 'pino';
import { z } from 'zod';
import { loadAppConfig } from '@drover/config';
import type { QueueInput } from '@drover/core';
import { createLogger } from '@drover/logger';
import { DroverMetrics } from '@drover/metrics';
import { PlatformModule } from '@drover/platform';
import { DroverKeys, RedisConnections } from '@drover/redis';
import { BullQueues, QueueRegistry, QueueStatsStore, RunStore, type NewRun } from '@drover/store';
import { testRedisUrl, testStores } from '@drover/testing';
import { PermanentError } from '../errors/permanent.error';
import type { JobContext } from '../job-context';
import { JobHandler } from '../job-handler.decorator';
import { WorkerRuntimeModule } from '../worker-runtime.module';
import { WorkerRuntime } from '../worker-runtime.service';

/** Per-run hooks the test handlers use: resolve when started, settle when released, note aborts. */
export interface Gate {
  started: Promise<number>;
  markStarted(attempt: number): void;
  release(): void;
  released: Promise<void>;
  aborts: unknown[];
}
export const gates = new Map<string, Gate>();
export function gate(id: string): Gate {
  let g = gates.get(id);
  if (!g) {
    let markStarted!: (n: number) => void;
    let release!: () => void;
    const started = new Promise<number>((r) => (markStarted = r));
    const released = new Promise<void>((r) => (release = r));
    g = { started, markStarted, release, released, aborts: [] };
    gates.set(id, g);
  }
  return g;
}
export const failing = { on: true };

@JobHandler('test.echo')
class EchoHandler {
  async handle(payload: unknown, ctx: JobContext) {
    await ctx.progress(50);
    return { echo: payload, attempt: ctx.run.attempt, maxAttempts: ctx.run.maxAttempts, createdBy: ctx.run.createdBy };
  }
}

@JobHandler('test.fail')
class FailHandler {
  handle(_: unknown, ctx: JobContext) {
    if (failing.on) throw new Error(`failed attempt ${ctx.run.attempt}`);
    return 'fixed';
  }
}

@JobHandler('test.permanent')
class PermanentHandler {
  handle() {
    throw new PermanentError('the report no longer exists');
  }
}

@JobHandler('test.typed', { payload: z.strictObject({ n: z.number() }) })
class TypedHandler {
  handle(p: { n: number }) {
    return p.n * 2;
  }
}

/** Runs until released or aborted. */
@JobHandler('test.block')
class BlockHandler {
  async handle(_: unknown, ctx: JobContext) {
    const g = gate(ctx.run.id);
    g.markStarted(ctx.run.attempt);
    await new Promise<void>((resolve, reject) => {
      void g.released.then(resolve);
      ctx.signal.addEventListener('abort', () => {
        g.aborts.push(ctx.signal.reason);
        reject(ctx.signal.reason as Error);
      });
    });
    return { attempt: ctx.run.attempt };
  }
}

/** How many times `test.count` was called, by run id. */
export const calls = new Map<string, number>();

@JobHandler('test.count')
class CountHandler {
  handle(_: unknown, ctx: JobContext) {
    calls.set(ctx.run.id, (calls.get(ctx.run.id) ?? 0) + 1);
    return 'ran';
  }
}

/** Writes `lines` lines to its run's log (`attempt a line i`), then fails its first `failFirst` attempts. */
@JobHandler('test.log')
class LogHandler {
  handle(p: { lines: number; failFirst?: number; fields?: Record<string, unknown> }, ctx: JobContext) {
    for (let i = 1; i <= p.lines; i++) ctx.log(`attempt ${ctx.run.attempt} line ${i}`, p.fields);
    if (ctx.run.attempt <= (p.failFirst ?? 0)) throw new Error(`failed attempt ${ctx.run.attempt}`);
    return 'logged';
  }
}

/** Items `test.checkpoint` processed, by run id, in order, with the attempt that processed each. */
export const processed = new Map<string, { item: number; attempt: number }[]>();

/**
 * Processes items `0..items-1` from its last checkpoint on, checkpointing `{next}` after every
 * `every`th; attempt `a` fails after item `failAfter[a-1]`. `bad`: checkpoints a state it may not
 * (`date`, `big`) and answers the error's code. Answers the state each attempt started from.
 */
@JobHandler('test.checkpoint')
class CheckpointHandler {
  async handle(
    p: { items: number; every: number; failAfter?: number[]; bad?: 'date' | 'big' },
    ctx: JobContext<{ next: number }>,
  ) {
    if (p.bad) {
      const state = p.bad === 'date' ? { at: new Date() } : { blob: 'x'.repeat(64 * 1024) };
      return ctx.checkpoint(state as never).then(
        () => 'stored',
        (err: { code?: string }) => err.code,
      );
    }
    const from = ctx.lastCheckpoint;
    const seen = processed.get(ctx.run.id) ?? [];
    processed.set(ctx.run.id, seen);
    for (let i = from?.next ?? 0; i < p.items; i++) {
      seen.push({ item: i, attempt: ctx.run.attempt });
      if ((i + 1) % p.every === 0) await ctx.checkpoint({ next: i + 1 });
      if (p.failAfter?.[ctx.run.attempt - 1] === i) throw new Error(`failed after item ${i}`);
    }
    return { from: from ?? null, last: ctx.lastCheckpoint };
  }
}

/** What `test.keyed` saw, at the handler: runs of each key running now and at most, and every start and end in order. */
export const keyed = {
  now: new Map<string, number>(),
  max: new Map<string, number>(),
  log: [] as { run: string; key: string; attempt: number; at: number; edge: 'start' | 'end' }[],
};

/** Runs `ms` under key `tenant` (counted at the handler), failing its first `failFirst` attempts. */
@JobHandler('test.keyed')
class KeyedHandler {
  async handle(p: { tenant: string; ms: number; failFirst?: number }, ctx: JobContext) {
    const n = (keyed.now.get(p.tenant) ?? 0) + 1;
    keyed.now.set(p.tenant, n);
    keyed.max.set(p.tenant, Math.max(n, keyed.max.get(p.tenant) ?? 0));
    const entry = { run: ctx.run.id, key: p.tenant, attempt: ctx.run.attempt };
    keyed.log.push({ ...entry, at: Date.now(), edge: 'start' });
    await new Promise((r) => setTimeout(r, p.ms));
    keyed.now.set(p.tenant, keyed.now.get(p.tenant)! - 1);
    keyed.log.push({ ...entry, at: Date.now(), edge: 'end' });
    if (ctx.run.attempt <= (p.failFirst ?? 0)) throw new Error(`failed attempt ${ctx.run.attempt}`);
    return 'ran';
  }
}

/** Every start and end of `test.flow` in order (its payload's `name`), and what each parent read of its children. */
export const flowLog = { edges: [] as string[], children: new Map<string, unknown>() };

/** Notes its start and end (`start:<name>` / `end:<name>`); reads its children; fails when `fail`. */
@JobHandler('test.flow')
class FlowHandler {
  async handle(p: { name: string; ms?: number; fail?: boolean }, ctx: JobContext) {
    flowLog.edges.push(`start:${p.name}`);
    flowLog.children.set(p.name, await ctx.children());
    if (p.ms) await new Promise((r) => setTimeout(r, p.ms));
    flowLog.edges.push(`end:${p.name}`);
    if (p.fail) throw new PermanentError(`${p.name} failed`);
    return { made: p.name };
  }
}

/**
 * Adds `n` `test.flow` children (named `<name>.<i>`) on `queue` and waits for them; started again
 * (its checkpoint says so), answers what they made. Logs `start:<name>:<attempt>` and `end:<name>`.
 */
@JobHandler('test.fanout')
class FanoutHandler {
  async handle(p: { name: string; n: number; queue: string }, ctx: JobContext<{ added: string[] }>) {
    flowLog.edges.push(`start:${p.name}:${ctx.run.attempt}`);
    if (!ctx.lastCheckpoint) {
      const added = await ctx.addChildren(
        Array.from({ length: p.n }, (_, i) => ({
          jobType: 'test.flow',
          queue: p.queue,
          payload: { name: `${p.name}.${i}`, ms: 100 },
        })),
      );
      await ctx.checkpoint({ added });
      await ctx.waitForChildren();
    }
    const children = await ctx.children();
    flowLog.edges.push(`end:${p.name}`);
    return { made: children.map((c) => (c.result as { made: string }).made) };
  }
}

@Module({
  providers: [
    FanoutHandler,
    FlowHandler,
    KeyedHandler,
    EchoHandler,
    FailHandler,
    PermanentHandler,
    TypedHandler,
    BlockHandler,
    CountHandler,
    LogHandler,
    CheckpointHandler,
  ],
})
class TestHandlers {}

export interface Harness {
  prefix: string;
  runs: RunStore;
  registry: QueueRegistry;
  bull: BullQueues;
  queueStats: QueueStatsStore;
  connections: RedisConnections;
  keys: DroverKeys;
  close(): Promise<void>;
}

/** Queue policies and a RunStore, without a worker (a producer's view). */
export async function producer(prefix: string, queues: QueueInput[]): Promise<Harness> {
  const stores = testStores('test', { prefix });
  await stores.registry.put(queues);
  return { ...stores, prefix };
}

export interface RuntimeHandle {
  app: INestApplicationContext;
  metrics: DroverMetrics;
  runtime: WorkerRuntime;
  close(): Promise<void>;
}

export async function startRuntime(
  prefix: string,
  env: Record<string, string> = {},
  log?: Logger,
): Promise<RuntimeHandle> {
  const config = loadAppConfig(
    'worker',
    {},
    {
      REDIS_URL: testRedisUrl(),
      DROVER_PREFIX: prefix,
      DROVER_INSTANCE_ID: env.DROVER_INSTANCE_ID ?? 'int-worker',
      LOG_LEVEL: 'silent',
      ...env,
    },
  );
  const logger =
    log ?? createLogger({ app: 'worker', instanceId: config.env.instanceId, level: 'silent', format: 'json' });
  @Module({ imports: [PlatformModule.forRoot(config, logger), WorkerRuntimeModule.forRoot(), TestHandlers] })
  class RuntimeModule {}
  const app = await NestFactory.createApplicationContext(RuntimeModule, { logger: false });
  const runtime = app.get(WorkerRuntime);
  await runtime.consuming;
  return { app, runtime, metrics: app.get(DroverMetrics), close: () => app.close() };
}

export async function metric(metrics: DroverMetrics, status: string, queue = 'q'): Promise<number> {
  const values = (await metrics.runsTotal.get()).values;
  return values.filter((v) => v.labels.status === status && v.labels.queue === queue).reduce((a, v) => a + v.value, 0);
}

export function newRun(id: string, jobType: string, over: Partial<NewRun> = {}): NewRun {
  return { id, routine: null, jobType, queue: 'q', source: 'api', scheduledFor: null, payload: {}, ...over };
}
