/**
 * The producer of the producer-cpu bench: a process that warms up like a long-running service, then
 * times windows of steady calls by this process's CPU (process.cpuUsage), not by the wall clock,
 * which a shared machine disturbs far more. `drover` calls the injected `DroverClient.enqueue` of
 * the build under `<root>` (its dist/libs, so two checkouts compare with one script); `raw` calls
 * BullMQ's `Queue.add`. With `profile` set, one more window runs under the V8 profiler and its
 * profile is written there (never a timed window: the profiler costs CPU of its own).
 * With PRODUCER_CPU_MODE=idempotent every call carries a key of its own (raw: a `jobId`; Drover:
 * an `idempotencyKey`), so each one is a new run that pays the existence check.
 * Args: <side> <root> <queue> <prefix> <n> <inFlight> <warm> <windows> [profile]; env REDIS_URL.
 * Prints one JSON line: { cpuUs: number[] } (µs of CPU per call, one per window).
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { withInFlight } from './protocol';

type Call = () => Promise<unknown>;

const IDEMPOTENT = process.env.PRODUCER_CPU_MODE === 'idempotent';
let calls = 0;
/** A key no other call of any producer process uses. */
const nextKey = () => `${process.pid}-${++calls}`;

/** One call of `side` and how to shut it down. */
async function producer(side: string, root: string, queue: string, prefix: string) {
  if (side === 'raw') {
    const connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
    const q = new Queue(queue, { connection, prefix });
    await q.waitUntilReady();
    const call: Call = IDEMPOTENT ? () => q.add('noop', {}, { jobId: nextKey() }) : () => q.add('noop', {});
    return { call, close: async () => (await q.close(), connection.disconnect()) };
  }
  // The build's own client: the checkout at `root`, compiled (its dist/libs).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { DroverClient, DroverModule } = require(
    join(root, 'dist', 'libs', 'client', 'src'),
  ) as typeof import('@drover/client');
  @Module({
    imports: [DroverModule.forRoot({ redis: process.env.REDIS_URL!, prefix, defaultQueue: queue, name: 'bench' })],
  })
  class ProducerModule {}
  const app = await NestFactory.createApplicationContext(ProducerModule, { logger: false });
  const client = app.get(DroverClient);
  const call: Call = IDEMPOTENT
    ? () => client.enqueue('noop', {}, { idempotencyKey: nextKey() })
    : () => client.enqueue('noop', {});
  return { call, close: () => app.close() };
}

async function main(): Promise<void> {
  const [side, root, queue, prefix, n, inFlight, warm, windows, profile] = process.argv.slice(2);
  const p = await producer(side!, root!, queue!, prefix!);
  const calls = () => withInFlight(Number(n), Number(inFlight), p.call);
  await withInFlight(Number(warm), Number(inFlight), p.call);
  const cpuUs: number[] = [];
  for (let w = 0; w < Number(windows); w++) {
    const cpu0 = process.cpuUsage();
    await calls();
    const cpu = process.cpuUsage(cpu0);
    cpuUs.push((cpu.user + cpu.system) / Number(n));
  }
  if (profile) {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    await calls();
    const { profile: taken } = await session.post('Profiler.stop');
    writeFileSync(profile, JSON.stringify(taken));
    session.disconnect();
  }
  process.stdout.write(`${JSON.stringify({ cpuUs })}\n`);
  await p.close();
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
