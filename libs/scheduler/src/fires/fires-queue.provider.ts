import { Queue } from 'bullmq';
import { DroverKeys, RedisConnections, type RedisClient } from '@drover/redis';
import { FIRES_QUEUE, type FireJobData } from '@drover/store';
import { cronRepeatStrategy } from './cron-repeat';

/** The fires queue, shared by the reconciler (writes schedulers) and the leader (repairs). */
export class FiresQueue extends Queue<FireJobData> {
  /** The connection this queue writes on (BullMQ uses the instance it is given as it is). */
  redis!: RedisClient;

  static create(conns: RedisConnections, keys: DroverKeys): FiresQueue {
    const redis = conns.open('command', 'fires-queue');
    const queue = new FiresQueue(keys.bullQueueName(FIRES_QUEUE), {
      connection: redis,
      prefix: keys.bullPrefix,
      // None: whatever is set here is copied into every Job Scheduler (see FIRE_JOB_OPTS).
      defaultJobOptions: {},
      // Cron schedulers fire at core's slots (its DST policy), see cronRepeatStrategy.
      settings: { repeatStrategy: cronRepeatStrategy },
    });
    queue.redis = redis;
    return queue;
  }
}
