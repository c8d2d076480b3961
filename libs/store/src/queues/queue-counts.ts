import { withDroverScripts, type RedisClient } from '@drover/redis';
import type { WorkerCatalogEntry } from '../workers/worker-catalog.store';
import type { BullQueues } from './bull-queues';

/** The most delayed jobs of a queue read to count its runs awaiting approval. */
export const AWAITING_APPROVAL_SCAN = 10_000;

/** The states a queue's runs are counted in (`drover_queue_jobs`, docs/observability.md). */
export const QUEUE_COUNT_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'parked'] as const;
export type QueueCountState = (typeof QUEUE_COUNT_STATES)[number];
export type QueueCounts = Record<QueueCountState, number>;

/**
 * How many runs of `queue` are in each state. The parked area is BullMQ's `failed` set (a job
 * lands there only when Drover parks it), so `failed` and `parked` count the same jobs. One
 * round trip per queue.
 */
export async function readQueueCounts(bull: BullQueues, queue: string): Promise<QueueCounts> {
  const c = await bull.get(queue).getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed');
  const failed = c.failed ?? 0;
  return {
    waiting: c.waiting ?? 0,
    active: c.active ?? 0,
    delayed: c.delayed ?? 0,
    prioritized: c.prioritized ?? 0,
    failed,
    parked: failed,
  };
}

/** The live workers that consume `queue` (draining ones included: they still finish its runs). */
export function workersConsuming(workers: readonly WorkerCatalogEntry[], queue: string): WorkerCatalogEntry[] {
  return workers.filter((w) => w.queues.some((q) => q.name === queue));
}

/**
 * How many runs of `queue` await approval, counted in Redis by one script over the far end of its
 * delayed set (where gated runs are held: see countAwaitingApproval-1.lua), at most
 * {@link AWAITING_APPROVAL_SCAN} jobs. One round trip per queue.
 */
export function readAwaitingApproval(bull: BullQueues, redis: RedisClient, queue: string): Promise<number> {
  const q = bull.get(queue);
  return withDroverScripts(redis).countAwaitingApproval(q.toKey('delayed'), q.toKey(''), AWAITING_APPROVAL_SCAN);
}
