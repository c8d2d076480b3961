import { Inject, Injectable, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '@drover/logger';
import { RedisConnections } from '../redis-connections';
import { Clock } from './clock';

/** One reading of Redis TIME, bracketed by this process's clock (epoch ms). */
export interface TimeSample {
  sentAt: number;
  receivedAt: number;
  redisMs: number;
}

/**
 * The offset (ms) to add to this process's clock to get Redis's, from the sample with the
 * shortest round trip (its midpoint is the best guess of when Redis read its clock). Pure.
 */
export function clockOffset(samples: TimeSample[]): number | undefined {
  const best = [...samples].sort((a, b) => a.receivedAt - a.sentAt - (b.receivedAt - b.sentAt))[0];
  return best ? Math.round(best.redisMs - (best.sentAt + best.receivedAt) / 2) : undefined;
}

/** How far off a process's clock may be before it says so loudly. */
export const SKEW_WARNING_MS = 1_000;
const RESYNC_MS = 30_000;
const SAMPLES = 3;

/**
 * The cluster's one notion of "now": this process's wall clock corrected by its measured offset
 * from Redis's clock (TIME), re-measured every 30 s. Every scheduling decision of every process
 * uses it, so a run never starts before its slot because one machine's clock runs ahead, and
 * processes disagree by no more than a network round trip. A process whose own clock is off by
 * more than a second says so in its log.
 */
@Injectable()
export class ClusterClock extends Clock implements OnApplicationBootstrap, OnApplicationShutdown {
  private offsetMs = 0;
  private warnedAt?: number;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly conns: RedisConnections,
    @Optional() @Inject(LOGGER) private readonly log?: Logger,
  ) {
    super();
  }

  now(): number {
    return Date.now() + this.offsetMs;
  }

  override toLocal(t: number): number {
    return t - this.offsetMs;
  }

  /** This process's clock minus the cluster's (ms); positive = ahead. */
  get skewMs(): number {
    return -this.offsetMs;
  }

  onApplicationBootstrap(): void {
    this.start();
  }

  onApplicationShutdown(): void {
    this.stop();
  }

  /** Measures now and every 30 s (outside Nest, e.g. the client module, call it yourself). */
  start(): void {
    if (this.timer) return;
    // Not awaited: an unreachable Redis must not hold up /healthz. Until the first reading the
    // offset is 0, and nothing is scheduled before Redis answers anyway.
    void this.sync();
    this.timer = setInterval(() => void this.sync(), RESYNC_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Measures the offset from Redis TIME; keeps the last one when Redis does not answer. */
  async sync(): Promise<void> {
    const samples: TimeSample[] = [];
    try {
      for (let i = 0; i < SAMPLES; i++) {
        const sentAt = Date.now();
        const [seconds, micros] = await this.conns.command.time();
        samples.push({ sentAt, receivedAt: Date.now(), redisMs: Number(seconds) * 1000 + Number(micros) / 1000 });
      }
    } catch (err) {
      this.log?.debug({ err: (err as Error).message }, 'could not read the cluster clock (Redis TIME)');
      if (samples.length === 0) return;
    }
    const offset = clockOffset(samples);
    if (offset === undefined) return;
    this.offsetMs = offset;
    if (Math.abs(offset) > SKEW_WARNING_MS) {
      // Once per distinct skew, not every 30 s.
      if (this.warnedAt === undefined || Math.abs(this.warnedAt - offset) > SKEW_WARNING_MS / 2) {
        this.warnedAt = offset;
        this.log?.warn(
          { skewMs: -offset },
          `!!! this process's clock is ${(-offset / 1000).toFixed(1)} s ${offset < 0 ? 'ahead of' : 'behind'} Redis's: ` +
            'Drover schedules by the cluster clock (Redis TIME), but fix NTP on this machine !!!',
        );
      }
    } else this.warnedAt = undefined;
  }
}
