/**
 * The Drover producer of the as-deployed bench: a NestJS application that imports `DroverModule`
 * and calls the injected `DroverClient` — `enqueue` per job (`single`; `idempotent` with an
 * idempotency key per job) with N calls in flight, or `enqueueMany` in chunks (`bulk`).
 * `steady` / `steady-idempotent` make BENCH_WARM such calls first (see protocol).
 * Args: <queue> <prefix> <mode> <n> <inFlight>; env REDIS_URL.
 */
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DroverClient, DroverModule } from '@drover/client';
import { argsOf, BULK_CHUNK, report, timedModeOf, waitForGo, WARM_CALLS, withInFlight } from './protocol';

async function main(): Promise<void> {
  const { queue, prefix, mode, n, inFlight } = argsOf(process.argv);
  @Module({
    imports: [DroverModule.forRoot({ redis: process.env.REDIS_URL!, prefix, defaultQueue: queue, name: 'bench' })],
  })
  class ProducerModule {}
  const app = await NestFactory.createApplicationContext(ProducerModule, { logger: false });
  const client = app.get(DroverClient);
  const timed = timedModeOf(mode);
  if (mode !== timed) {
    // Warm-up calls of the same kind (keys of their own: a key names one run in every queue), into the same queue, before the bench reads memory.
    await withInFlight(WARM_CALLS, inFlight, (i) =>
      timed === 'idempotent'
        ? client.enqueue('noop', {}, { idempotencyKey: `${mode}-warm-${i}` })
        : client.enqueue('noop', {}),
    );
  }
  process.stdout.write('ready\n');
  await waitForGo();
  await report(n, async () => {
    if (timed === 'bulk') {
      for (let i = 0; i < n; i += BULK_CHUNK) {
        await client.enqueueMany(
          Array.from({ length: Math.min(BULK_CHUNK, n - i) }, () => ({ job: 'noop', payload: {} })),
        );
      }
    } else if (timed === 'idempotent') {
      await withInFlight(n, inFlight, (i) => client.enqueue('noop', {}, { idempotencyKey: `${mode}-order-${i}` }));
    } else {
      await withInFlight(n, inFlight, () => client.enqueue('noop', {}));
    }
  });
  await app.close();
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
