import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@drover/config';
import { droverVersion } from '@drover/platform';
import { Clock } from '@drover/redis';
import { ProcessCatalog, ProcessPresence } from '@drover/store';

/** Announces this api process in the process catalog, so the cluster view lists every replica. */
@Injectable()
export class ApiPresence implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ApiPresence');
  private readonly presence: ProcessPresence;
  readonly instanceId: string;
  readonly nonce = randomBytes(6).toString('hex');

  constructor(config: AppConfig, catalog: ProcessCatalog, clock: Clock) {
    const startedAt = clock.now();
    const version = droverVersion();
    this.instanceId = config.env.instanceId;
    this.presence = new ProcessPresence(
      catalog,
      () => ({
        role: 'api',
        instanceId: this.instanceId,
        nonce: this.nonce,
        version,
        pid: process.pid,
        hostname: hostname(),
        startedAt,
        heartbeatAt: clock.now(),
      }),
      (err) => this.logger.debug(`presence write failed: ${err.message}`),
    );
  }

  onApplicationBootstrap(): void {
    this.presence.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.presence.stop();
  }
}
