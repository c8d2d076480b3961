import { Global, Inject, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppConfig } from '@drover/config';
import { LOGGER } from '@drover/logger';
import { DroverKeys } from './keys';
import { checkMemoryPolicy } from './memory-policy';
import { RedisConnections } from './redis-connections';

/** Owns the process's Redis connections: opens lazily, warns on eviction policy, closes last. */
@Global()
@Module({
  providers: [
    {
      provide: RedisConnections,
      inject: [AppConfig, LOGGER],
      useFactory: (config: AppConfig, log: Logger) =>
        new RedisConnections(config.env.redis, config.env.instanceId, log, config.env.redisWait),
    },
    {
      provide: DroverKeys,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new DroverKeys(config.env.prefix, config.env.redis.kind === 'cluster'),
    },
  ],
  exports: [RedisConnections, DroverKeys],
})
export class RedisModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly connections: RedisConnections,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Not awaited on the boot path: an unreachable Redis must not stop /healthz from answering.
    void checkMemoryPolicy(this.connections.command).then((verdict) => {
      if (verdict.ok === true) return;
      this.log.warn({ redis: 'maxmemory-policy' }, `!!! ${verdict.message} !!!`);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.connections.closeAll();
  }
}
