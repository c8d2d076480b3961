/**
 * The raw BullMQ producer of the as-deployed bench: `Queue.add` per job (`single`, `idempotent`
 * with a job id per job) with N calls in flight, or `Queue.addBulk` in chunks (`bulk`). `shaped` is
 * `single` adding the job Drover's client stores for `enqueue('noop', {})`: its data (the payload
 * and the producer's code) and options (the run id as job id, drawn the same way; no attempts).
 * Args: <queue> <prefix> <mode> <n> <inFlight>; env REDIS_URL.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { adHocRunId, secureRandomSource } from '@drover/core';
import { argsOf, BULK_CHUNK, report, waitForGo, withInFlight } from './protocol';

async function main(): Promise<void> {
  const { queue: name, prefix, mode, n, inFlight } = argsOf(process.argv);
  const connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
  const queue = new Queue(name, { connection, prefix });
  await queue.waitUntilReady();
  process.stdout.write('ready\n');
  await waitForGo();
  await report(n, async () => {
    if (mode === 'bulk') {
      for (let i = 0; i < n; i += BULK_CHUNK) {
        await queue.addBulk(Array.from({ length: Math.min(BULK_CHUNK, n - i) }, () => ({ name: 'noop', data: {} })));
      }
    } else if (mode === 'idempotent') {
      await withInFlight(n, inFlight, (i) => queue.add('noop', {}, { jobId: `order-${i}` }));
    } else if (mode === 'shaped') {
      const random = secureRandomSource();
      await withInFlight(n, inFlight, () =>
        queue.add('noop', { payload: {}, by: '1' }, { jobId: adHocRunId(Date.now(), random), attempts: undefined }),
      );
    } else {
      await withInFlight(n, inFlight, () => queue.add('noop', {}));
    }
  });
  await queue.close();
  connection.disconnect();
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
