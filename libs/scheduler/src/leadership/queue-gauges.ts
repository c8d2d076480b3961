import type { DroverMetrics } from '@drover/metrics';
import type { RedisClient } from '@drover/redis';
import {
  QUEUE_COUNT_STATES,
  readAwaitingApproval,
  readQueueCounts,
  workersConsuming,
  type BatchStore,
  type BullQueues,
  type QueueRegistry,
  type WorkerCatalog,
} from '@drover/store';

/** Leader only: the cluster-wide queue gauges (the counts the API's queue view shows too) and the open batches. */
export async function exportQueueGauges(
  metrics: DroverMetrics,
  deps: { registry: QueueRegistry; bull: BullQueues; catalog: WorkerCatalog; redis: RedisClient; batches?: BatchStore },
): Promise<void> {
  if (deps.batches) metrics.batchesOpen.set(await deps.batches.openCount());
  const [queues, workers] = await Promise.all([deps.registry.list(), deps.catalog.list()]);
  for (const { def } of queues) {
    const counts = await readQueueCounts(deps.bull, def.name);
    for (const state of QUEUE_COUNT_STATES) metrics.queueJobs.set({ queue: def.name, state }, counts[state]);
    metrics.runsAwaitingApproval.set({ queue: def.name }, await readAwaitingApproval(deps.bull, deps.redis, def.name));
    metrics.queueWorkers.set({ queue: def.name }, workersConsuming(workers, def.name).length);
    metrics.queueGlobalConcurrency.set({ queue: def.name }, def.globalConcurrency ?? 0);
    metrics.queueConcurrency.set({ queue: def.name }, def.concurrency);
  }
}
