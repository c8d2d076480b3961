import type { DroverMetrics } from '@drover/metrics';
import type { BullQueues, QueueRegistry, WorkerCatalog } from '@drover/store';

/**
 * Leader only: the cluster-wide queue gauges. The parked area is BullMQ's `failed` set (a job
 * lands there only when Drover parks it), so `failed` and `parked` report the same jobs.
 */
export async function exportQueueGauges(
  metrics: DroverMetrics,
  deps: { registry: QueueRegistry; bull: BullQueues; catalog: WorkerCatalog },
): Promise<void> {
  const [queues, workers] = await Promise.all([deps.registry.list(), deps.catalog.list()]);
  for (const { def } of queues) {
    const counts = await deps.bull.get(def.name).getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed');
    for (const state of ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const) {
      metrics.queueJobs.set({ queue: def.name, state }, counts[state] ?? 0);
    }
    metrics.queueJobs.set({ queue: def.name, state: 'parked' }, counts.failed ?? 0);
    metrics.queueWorkers.set(
      { queue: def.name },
      workers.filter((w) => w.queues.some((q) => q.name === def.name)).length,
    );
    metrics.queueGlobalConcurrency.set({ queue: def.name }, def.globalConcurrency ?? 0);
  }
}
