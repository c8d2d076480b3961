import { Queue } from 'bullmq';
import { DroverKeys, RedisConnections } from '@drover/redis';
import { FIRES_QUEUE, type FireJobData } from '@drover/store';
import { cronRepeatStrategy } from './cron-repeat';

/** The fires queue, shared by the reconciler (writes schedulers) and the leader (repairs). */
export class FiresQueue extends Queue<FireJobData> {
  static create(conns: RedisConnections, keys: DroverKeys): FiresQueue {
    return new FiresQueue(keys.bullQueueName(FIRES_QUEUE), {
      connection: conns.open('command', 'fires-queue'),
      prefix: keys.bullPrefix,
      // None: whatever is set here is copied into every Job Scheduler (see FIRE_JOB_OPTS).
      defaultJobOptions: {},
      // Cron schedulers fire at core's slots (its DST policy), see cronRepeatStrategy.
      settings: { repeatStrategy: cronRepeatStrategy },
    });
  }
}
