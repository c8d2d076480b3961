import { Queue } from 'bullmq';
import { DroverKeys, RedisConnections } from '@drover/redis';
import { FIRES_QUEUE, type FireJobData } from './fire-job';

/** Options of every fire job: fires are cheap and bounded in number, but failures are kept to debug. */
export const FIRE_JOB_OPTS = {
  attempts: 5,
  backoff: { type: 'fixed', delay: 500 },
  removeOnComplete: { count: 1000 },
  removeOnFail: { count: 5000, age: 7 * 24 * 3600 },
} as const;

/** The fires queue, shared by the reconciler (writes schedulers) and the dispatcher (consumes). */
export class FiresQueue extends Queue<FireJobData> {
  static create(conns: RedisConnections, keys: DroverKeys): FiresQueue {
    return new FiresQueue(keys.bullQueueName(FIRES_QUEUE), {
      connection: conns.open('command', 'fires-queue'),
      prefix: keys.bullPrefix,
      defaultJobOptions: FIRE_JOB_OPTS,
    });
  }
}
