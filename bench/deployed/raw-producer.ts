/**
 * The raw BullMQ producer of the as-deployed bench: `Queue.add` per job (`single`, `idempotent`
 * with a job id per job) with N calls in flight, or `Queue.addBulk` in chunks (`bulk`). `shaped` is
 * `single` adding the job Drover's client stores for `enqueue('noop', {})`: its data (the payload
 * and the producer's code) and options (the run id as job id, drawn the same way; no attempts),
 * stored as Drover stores it: without BullMQ's copy of the id in the options.
 * `steady` / `steady-idempotent` make BENCH_WARM such calls first (see protocol).
 * Args: <queue> <prefix> <mode> <n> <inFlight>; env REDIS_URL.
 */
import { Job, Queue, type JobJson } from 'bullmq';
import { Redis } from 'ioredis';
import { adHocRunId, secureRandomSource } from '@drover/core';
import { argsOf, BULK_CHUNK, report, timedModeOf, waitForGo, WARM_CALLS, withInFlight } from './protocol';

/** What Drover's queues do (libs/store CompactQueue): no copy of the job id in the stored options. */
class ShapedJob extends Job {
  override asJSON(): JobJson {
    const json = super.asJSON();
    const { jobId: _id, ...opts } = json.opts;
    return { ...json, opts };
  }
}
class ShapedQueue extends Queue {
  protected override get Job(): typeof Job {
    return ShapedJob as unknown as typeof Job;
  }
}

async function main(): Promise<void> {
  const { queue: name, prefix, mode, n, inFlight } = argsOf(process.argv);
  const connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
  const queue =
    mode === 'shaped' ? new ShapedQueue(name, { connection, prefix }) : new Queue(name, { connection, prefix });
  await queue.waitUntilReady();
  const timed = timedModeOf(mode);
  if (mode !== timed) {
    // Warm-up calls of the same kind (own ids), into the same queue, before the bench reads memory.
    await withInFlight(WARM_CALLS, inFlight, (i) =>
      timed === 'idempotent' ? queue.add('noop', {}, { jobId: `${mode}-warm-${i}` }) : queue.add('noop', {}),
    );
  }
  process.stdout.write('ready\n');
  await waitForGo();
  await report(n, async () => {
    if (timed === 'bulk') {
      for (let i = 0; i < n; i += BULK_CHUNK) {
        await queue.addBulk(Array.from({ length: Math.min(BULK_CHUNK, n - i) }, () => ({ name: 'noop', data: {} })));
      }
    } else if (timed === 'idempotent') {
      await withInFlight(n, inFlight, (i) => queue.add('noop', {}, { jobId: `${mode}-order-${i}` }));
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
