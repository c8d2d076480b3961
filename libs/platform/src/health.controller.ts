import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, type HealthCheckResult } from '@nestjs/terminus';
import { RedisConnections } from '@drover/redis';
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

  /** Readiness: Redis answers PING, the process is not draining, and every role check passes. */
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
          return s.up();
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
