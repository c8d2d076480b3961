import { EventEmitter, once } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { DroverMetrics } from '@drover/metrics';
import { withDroverScripts, type DroverKeys, type DroverScripts, type RedisClient } from '@drover/redis';

export interface Leadership {
  epoch: number;
  /** `<instance>|<epoch>`: what fenced writes must present. */
  token: string;
}

export interface LeaderElectorOptions {
  instanceId: string;
  leaseMs: number;
  /** How often to renew (default lease/3) and, while a follower, to try to acquire. */
  renewEveryMs?: number;
}

/**
 * Leader election on a Redis lease with a fencing epoch.
 *
 * Safety rests on the local deadline: a leader counts itself leader only until
 * `start of its last successful renew + lease`, measured on the monotonic clock from *before* the
 * command was sent, so it stops leader work no later than Redis expires the lease — even if it was
 * frozen (SIGSTOP, GC) and its timers have not run yet. Writes that matter are also fenced in Lua.
 *
 * Emits `elected` (Leadership) and `demoted` (reason) — tests await these instead of sleeping.
 */
export class LeaderElector extends EventEmitter {
  private readonly redis: RedisClient & DroverScripts;
  private current?: Leadership;
  private deadline = 0;
  private timer?: NodeJS.Timeout;
  private stopped = true;
  private ticking = false;

  constructor(
    redis: RedisClient,
    private readonly keys: DroverKeys,
    private readonly opts: LeaderElectorOptions,
    private readonly log?: Logger,
    private readonly metrics?: DroverMetrics,
  ) {
    super();
    this.redis = withDroverScripts(redis);
    metrics?.leader.set({ instance: opts.instanceId }, 0);
  }

  get leaderKey(): string {
    return this.keys.core('leader');
  }

  get epochKey(): string {
    return this.keys.core('leader-epoch');
  }

  /** The current leadership, only while the local deadline has not passed. */
  get leadership(): Leadership | undefined {
    this.enforceDeadline();
    return this.current;
  }

  private enforceDeadline(): void {
    if (this.current && performance.now() >= this.deadline) this.demote('lease expired locally before renewal');
  }

  get isLeader(): boolean {
    return this.leadership !== undefined;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.tick();
  }

  /** Resolves with the leadership once this instance holds it. */
  async waitForLeadership(): Promise<Leadership> {
    const held = this.leadership;
    if (held) return held;
    const [l] = (await once(this, 'elected')) as [Leadership];
    return l;
  }

  /** Stops campaigning and releases the lease (bounded retries) so a successor takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const held = this.current;
    if (!held) return;
    this.demote('shutdown');
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.redis.leaderRelease(this.leaderKey, held.token);
        return;
      } catch (err) {
        this.log?.warn({ err: (err as Error).message, attempt }, 'could not release the leader lease; retrying');
      }
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    const every = this.opts.renewEveryMs ?? Math.max(100, Math.floor(this.opts.leaseMs / 3));
    this.timer = setTimeout(() => void this.tick(), every);
  }

  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    const sentAt = performance.now();
    try {
      const held = this.leadership;
      if (held) {
        const ok = await this.redis.leaderRenew(this.leaderKey, held.token, this.opts.leaseMs);
        if (ok === 1 && this.current === held) this.deadline = sentAt + this.opts.leaseMs;
        else if (ok !== 1) this.demote('lease lost to another instance');
      } else if (!this.stopped) {
        const epoch = await this.redis.leaderAcquire(
          this.leaderKey,
          this.epochKey,
          this.opts.instanceId,
          this.opts.leaseMs,
        );
        if (epoch > 0 && !this.stopped) {
          this.deadline = sentAt + this.opts.leaseMs;
          this.promote({ epoch, token: `${this.opts.instanceId}|${epoch}` });
        }
      }
    } catch (err) {
      // Redis unreachable: keep trying; the local deadline demotes us in time if this persists.
      this.log?.warn({ err: (err as Error).message }, 'leader lease check failed');
    } finally {
      this.ticking = false;
      this.armDeadline();
      this.schedule();
    }
  }

  private deadlineTimer?: NodeJS.Timeout;
  private armDeadline(): void {
    clearTimeout(this.deadlineTimer);
    if (!this.current) return;
    this.deadlineTimer = setTimeout(() => this.enforceDeadline(), Math.max(0, this.deadline - performance.now()) + 1);
  }

  private promote(l: Leadership): void {
    this.current = l;
    this.metrics?.leader.set({ instance: this.opts.instanceId }, 1);
    this.metrics?.leaderTransitions.inc();
    this.log?.info({ epoch: l.epoch }, 'became leader');
    this.emit('elected', l);
  }

  private demote(reason: string): void {
    const was = this.current;
    if (!was) return;
    this.current = undefined;
    clearTimeout(this.deadlineTimer);
    this.metrics?.leader.set({ instance: this.opts.instanceId }, 0);
    this.metrics?.leaderTransitions.inc();
    this.log?.warn({ epoch: was.epoch, reason }, 'stepped down as leader');
    this.emit('demoted', reason, was);
  }
}
