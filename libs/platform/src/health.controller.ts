import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, type HealthCheckResult } from '@nestjs/terminus';
import { readMemoryUse, RedisConnections } from '@drover/redis';
import { ReadinessRegistry } from './readiness.registry';

@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly redis: RedisConnections,
    private readonly readiness: ReadinessRegistry,
  ) {}

  /** Liveness: the event loop answers. Never depends on Redis, so a Redis outage restarts nothing. */
  @Get('healthz')
  @HealthCheck()
  liveness(): Promise<HealthCheckResult> {
    return this.health.check([() => this.indicators.check('process').up({ pid: process.pid })]);
  }

  /**
   * Readiness: Redis answers PING, the process is not draining, and every role check passes. A
   * Redis at its memory limit keeps the process ready (reads work, nothing restarts memory free,
   * and an api that is not ready could not answer its 503s): the `redis` check says so instead.
   */
  @Get('readyz')
  @HealthCheck()
  readinessCheck(): Promise<HealthCheckResult> {
    const checks = [
      async () => {
        const s = this.indicators.check('lifecycle');
        return this.readiness.isDraining ? s.down('draining') : s.up();
      },
      async () => {
        const s = this.indicators.check('redis');
        try {
          await this.redis.ping();
          const memory = await readMemoryUse(this.redis.command);
          if (!memory?.full) return s.up();
          return s.up({
            memory: 'full',
            message: `Redis is at its maxmemory (${memory.usedBytes} of ${memory.maxBytes} bytes) and refuses writes (redis-out-of-memory): free memory or raise maxmemory`,
          });
        } catch (err) {
          return s.down((err as Error).message);
        }
      },
      ...this.readiness.entries().map(([name, check]) => async () => {
        const s = this.indicators.check(name);
        try {
          await check();
          return s.up();
        } catch (err) {
          return s.down((err as Error).message);
        }
      }),
    ];
    return this.health.check(checks);
  }
}
