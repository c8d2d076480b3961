import type { QueuePolicyCache } from '../queues/queue-policy-cache';
import type { ProducerCodes } from './producer-codes';
import { runJobDataOf } from './run-job-data';
import type { JobSnapshot, RunReadContext } from './run-view';

/**
 * What reading a queue's runs needs beyond their jobs: a run that stores no attempts follows its
 * queue's current maxAttempts, and a run that stores its producer's code shows the producer's name.
 * Both come from caches (the queue policies, the producer codes), so a read pays a round trip only
 * for a code it has not seen yet.
 */
export class RunReading {
  constructor(
    private readonly policies: Pick<QueuePolicyCache, 'get'>,
    readonly producers: ProducerCodes,
  ) {}

  async contextOf(queue: string, jobs: readonly (Pick<JobSnapshot, 'data'> | undefined)[]): Promise<RunReadContext> {
    const codes: string[] = [];
    for (const job of jobs) {
      const by = job && runJobDataOf(job.data).by;
      if (by !== undefined && this.producers.known(by) === undefined) codes.push(by);
    }
    const [facts] = await Promise.all([this.policies.get(queue), this.producers.load(codes)]);
    const producers = this.producers;
    return { maxAttempts: facts.def?.maxAttempts, producerName: (code) => producers.nameOf(code) };
  }
}
