import { Queue } from 'bullmq';
import { DroverKeys, RedisConnections } from '@drover/redis';
import { FIRES_QUEUE, type FireJobData } from './fire-job';

/**
 * Options of every fire job. Kept short on purpose: BullMQ stores them twice per routine (in the
 * Job Scheduler and in its pending job), which matters at 100k routines. A dispatched fire is
 * worth nothing afterwards (the run is the record), so it is removed at once; failed fires are
 * kept (bounded) to debug.
 */
export const FIRE_JOB_OPTS = {
  attempts: 5,
  backoff: { type: 'fixed', delay: 500 },
  removeOnComplete: true,
  removeOnFail: 1000,
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
