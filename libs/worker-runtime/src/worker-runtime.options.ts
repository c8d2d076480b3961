/** Injection token of {@link WorkerRuntimeOptions}. */
export const WORKER_RUNTIME_OPTIONS = Symbol('drover.worker-runtime.options');

export interface WorkerRuntimeOptions {
  /** Queues to consume; default DROVER_QUEUES, else every defined queue. */
  queues?: string[];
  /** The version shown in the worker catalog (cluster view). */
  version?: string;
}
