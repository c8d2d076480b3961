import { Injectable } from '@nestjs/common';
import { queueDepthVerdict, type QueueDepthCondition as QueueDepthSpec } from '@drover/core';
import { BullQueues, QueueRegistry, readQueueCounts } from '@drover/store';
import { ConditionKind, type ConditionKindContext } from './condition-kind.decorator';

/**
 * The built-in condition kind `queue-depth` (`{kind: queue-depth, queue, below}`): the slot runs
 * while `queue` holds fewer than `below` runs waiting for a worker, as BullMQ counts them — its
 * wait list and its prioritized set. Delayed runs (retries in backoff, runs armed ahead) and active
 * ones are not waiting. A queue that is not defined is a launch failure, not an empty queue.
 */
@Injectable()
export class QueueDepthCondition {
  constructor(
    private readonly bull: BullQueues,
    private readonly queues: QueueRegistry,
  ) {}

  @ConditionKind('queue-depth')
  async check(ctx: ConditionKindContext): Promise<boolean> {
    const { queue, below } = ctx.condition as QueueDepthSpec;
    const [def, counts] = await Promise.all([this.queues.get(queue), readQueueCounts(this.bull, queue)]);
    if (!def) throw new Error(`condition queue-depth: queue "${queue}" is not defined`);
    const verdict = queueDepthVerdict(counts.waiting + counts.prioritized, below);
    if ('error' in verdict) throw new Error(verdict.error);
    return verdict.run;
  }
}
