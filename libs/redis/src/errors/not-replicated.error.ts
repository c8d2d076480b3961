import { DroverError } from '@drover/core';

/**
 * A write made with `DROVER_REDIS_WAIT_REPLICAS` set was not acknowledged by enough replicas within
 * the WAIT timeout (or the connection changed under it): it does not count. The write itself may
 * exist on the master; a failover could still lose it. Retrying is safe (run ids and slot claims
 * are idempotent).
 */
export class NotReplicatedError extends DroverError {
  get code() {
    return 'redis-not-replicated' as const;
  }

  constructor(
    readonly what: string,
    readonly acknowledged: number,
    readonly wanted: number,
    detail: string,
  ) {
    super(`${what} was not acknowledged by ${wanted} Redis replica(s): ${detail}; it does not count, retry`);
    this.name = 'NotReplicatedError';
  }
}
