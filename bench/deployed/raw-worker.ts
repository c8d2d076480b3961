/**
 * The raw BullMQ worker of the benches: one `Worker` at the given concurrency, BullMQ defaults
 * otherwise. Its processor does nothing, or, given an oracle URL (the fire-lateness bench), makes
 * the same HTTP call Drover's `http.request` makes, with the slot time from the Job Scheduler's
 * job id. Args: <queue> <prefix> <concurrency> [oracle url]; env REDIS_URL.
 */
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';

/** Posts to the oracle as a Drover run would; a Job Scheduler's job id ends with its slot (`repeat:<id>:<ms>`). */
function callOracle(oracleUrl: string) {
  return async (job: Job) => {
    const slot = Number(/:(\d+)$/.exec(job.id ?? '')?.[1]);
    await fetch(`${oracleUrl}/hit`, {
      method: 'POST',
      headers: { 'x-drover-scheduled-for': new Date(slot).toISOString(), 'x-drover-routine': job.name },
    });
  };
}

async function main(): Promise<void> {
  const [name, prefix, concurrency, oracleUrl] = process.argv.slice(2);
  const worker = new Worker(name!, oracleUrl ? callOracle(oracleUrl) : async () => undefined, {
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
