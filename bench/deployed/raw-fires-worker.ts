/**
 * The raw side of the fire-lateness bench, in its own process like Drover's worker app: a BullMQ
 * `Worker` on the Job Schedulers' queue whose processor makes the same HTTP call Drover's
 * `http.request` makes, with the slot time from the job id. Args: <queue> <prefix> <oracle url>
 * <concurrency>; env REDIS_URL.
 */
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';

async function main(): Promise<void> {
  const [name, prefix, oracleUrl, concurrency] = process.argv.slice(2);
  const worker = new Worker(
    name!,
    async (job) => {
      // A Job Scheduler's job id ends with its slot: `repeat:<scheduler>:<millis>`.
      const slot = Number(/:(\d+)$/.exec(job.id ?? '')?.[1]);
      await fetch(`${oracleUrl}/hit`, {
        method: 'POST',
        headers: { 'x-drover-scheduled-for': new Date(slot).toISOString(), 'x-drover-routine': job.name },
      });
    },
    {
      connection: new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null }),
      prefix,
      concurrency: Number(concurrency),
    },
  );
  await worker.waitUntilReady();
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => void worker.close().then(() => process.exit(0)));
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
