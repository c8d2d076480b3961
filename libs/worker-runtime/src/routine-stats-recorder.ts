import type { Logger } from 'pino';
import type { StatsObservation } from '@drover/core';
import type { Clock } from '@drover/redis';
import type { RoutineStatsStore, StatsBatch } from '@drover/store';

/** How often the batch goes to Redis: the stats of a run that just ended show within this. */
export const STATS_FLUSH_MS = 1_000;

/**
 * Collects the run statistics of routine runs (final status and duration when a run ends, lateness
 * when it first starts) in memory and writes them in one pipeline per {@link STATS_FLUSH_MS}, so a
 * run's end costs no round trip of its own. What a crash loses is at most one flush interval of
 * statistics, never a run.
 */
export class RoutineStatsRecorder {
  private batch: StatsBatch = new Map();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly store: RoutineStatsStore,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  observe(routine: string | null | undefined, obs: StatsObservation): void {
    if (!routine) return;
    this.store.add(this.batch, routine, this.clock.now(), obs);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), STATS_FLUSH_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  async flush(): Promise<void> {
    if (this.batch.size === 0) return;
    const batch = this.batch;
    this.batch = new Map();
    try {
      await this.store.flush(batch);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'routine stats not written');
    }
  }
}
