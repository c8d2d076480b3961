import { hostname } from 'node:os';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppConfig } from '@drover/config';
import { LOGGER } from '@drover/logger';
import { droverVersion } from '@drover/platform';
import { Clock } from '@drover/redis';
import { ProcessCatalog, ProcessPresence } from '@drover/store';
import type { Leadership } from './leader-elector';
import { SchedulerLeaderService } from './scheduler-leader.service';

/**
 * Announces this scheduler in the process catalog (the API's cluster view lists schedulers from
 * it), with its leadership while it leads: the lease in Redis names the leader and its epoch,
 * but not since when.
 */
@Injectable()
export class SchedulerPresence implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly presence: ProcessPresence;
  private lead?: { epoch: number; since: number };

  constructor(
    config: AppConfig,
    catalog: ProcessCatalog,
    clock: Clock,
    leader: SchedulerLeaderService,
    @Inject(LOGGER) log: Logger,
  ) {
    const startedAt = clock.now();
    const elector = leader.elector;
    const version = droverVersion();
    this.presence = new ProcessPresence(
      catalog,
      () => ({
        role: 'scheduler',
        instanceId: config.env.instanceId,
        nonce: elector.nonce,
        version,
        pid: process.pid,
        hostname: hostname(),
        startedAt,
        heartbeatAt: clock.now(),
        ...(this.lead && elector.isLeader && { leader: this.lead }),
      }),
      (err) => log.debug({ err: err.message }, 'scheduler presence write failed'),
    );
    elector.on('elected', (l: Leadership) => {
      this.lead = { epoch: l.epoch, since: clock.now() };
      void this.presence.beat();
    });
    elector.on('demoted', () => {
      this.lead = undefined;
      void this.presence.beat();
    });
  }

  onApplicationBootstrap(): void {
    this.presence.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.presence.stop();
  }
}
