/**
 * The raw BullMQ worker of the as-deployed bench: one `Worker` with a no-op processor at the
 * given concurrency, BullMQ defaults otherwise. Args: <queue> <prefix> <concurrency>; env REDIS_URL.
 */
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';

async function main(): Promise<void> {
  const [name, prefix, concurrency] = process.argv.slice(2);
  const worker = new Worker(name!, async () => undefined, {
    connection: new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null }),
    prefix,
    concurrency: Number(concurrency),
  });
  await worker.waitUntilReady();
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => void worker.close().then(() => process.exit(0)));
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
