import type { Provider } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppConfig } from '@drover/config';
import { LOGGER } from '@drover/logger';
import { DroverMetrics } from '@drover/metrics';
import { DroverKeys, RedisConnections } from '@drover/redis';
import { LeaderElector } from './leader-elector';

/**
 * The process's leader elector, on a connection of its own, campaigning as this instance with the
 * configured lease. The one way to build it: Nest provides it ({@link leaderElectorProvider}) to
 * SchedulerLeaderService, which starts and stops it; tests outside Nest call this.
 */
export function createLeaderElector(
  config: AppConfig,
  conns: RedisConnections,
  keys: DroverKeys,
  log: Logger,
  metrics: DroverMetrics,
): LeaderElector {
  return new LeaderElector(
    conns.open('command', 'leader'),
    keys,
    { instanceId: config.env.instanceId, leaseMs: config.env.leaderTtlMs },
    log,
    metrics,
  );
}

export const leaderElectorProvider: Provider = {
  provide: LeaderElector,
  inject: [AppConfig, RedisConnections, DroverKeys, LOGGER, DroverMetrics],
  useFactory: createLeaderElector,
};
