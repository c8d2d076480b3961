/** Default floor on how often a routine may fire: once per second. */
export const DEFAULT_MIN_FIRE_INTERVAL_MS = 1000;

/** Knobs for validating queues, routines and bundles. */
export interface ValidationOptions {
  /** Refuse triggers that may fire more often than this (ms). Default 1000. */
  minFireIntervalMs?: number;
  /** Bundle only: queue names that exist outside the bundle (e.g. already in Redis). */
  knownQueues?: readonly string[];
  /** Bundle only: require every routine's `queue` to be defined (in the bundle or `knownQueues`). Default true. */
  checkQueueRefs?: boolean;
}

/** {@link ValidationOptions} with every default filled in. */
export type ResolvedValidationOptions = Required<ValidationOptions>;

/** Fill in defaults for {@link ValidationOptions}. */
export function resolveValidationOptions(opts: ValidationOptions = {}): ResolvedValidationOptions {
  return {
    minFireIntervalMs: opts.minFireIntervalMs ?? DEFAULT_MIN_FIRE_INTERVAL_MS,
    knownQueues: opts.knownQueues ?? [],
    checkQueueRefs: opts.checkQueueRefs ?? true,
  };
}
