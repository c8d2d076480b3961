import { randomBytes } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { DuplicateInstanceWatch } from '@drover/core';
import type { DroverMetrics } from '@drover/metrics';
import { withDroverScripts, type DroverKeys, type DroverScripts, type RedisClient } from '@drover/redis';

export interface Leadership {
  epoch: number;
  /** `<instance>|<nonce>|<epoch>`: what fenced writes must present. */
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
 * The lease holder is the instance id plus a nonce drawn at process start, so two processes given
 * the same DROVER_INSTANCE_ID are two candidates: only one can hold the lease, and neither renews
 * or releases the other's. Such a duplicate is a misconfiguration, logged at error level: every
 * tick also writes the nonce to a key per instance id, and finding another nonce there on any
 * write but the first means another live process uses this id (see DuplicateInstanceWatch).
 *
 * Emits `elected` (Leadership), `demoted` (reason) and `duplicate` (the other process's nonce) —
 * tests await these instead of sleeping.
 */
export class LeaderElector extends EventEmitter {
  private readonly redis: RedisClient & DroverScripts;
  private current?: Leadership;
  private deadline = 0;
  private timer?: NodeJS.Timeout;
  private stopped = true;
  private ticking = false;
  /** `<instance>|<nonce>`: who this process start is in the lease. */
  readonly holder: string;
  private readonly duplicates: DuplicateInstanceWatch;
  /** Lease values held under this instance id by another start, already logged. */
  private readonly sightings = new Set<string>();

  constructor(
    redis: RedisClient,
    private readonly keys: DroverKeys,
    private readonly opts: LeaderElectorOptions,
    private readonly log?: Logger,
    private readonly metrics?: DroverMetrics,
  ) {
    super();
    this.redis = withDroverScripts(redis);
    // Per process start; kept out of metric labels, which stay the plain instance id (docs/observability.md).
    const nonce = randomBytes(6).toString('hex');
    this.holder = `${opts.instanceId}|${nonce}`;
    this.duplicates = new DuplicateInstanceWatch(nonce);
    metrics?.leader.set({ instance: opts.instanceId }, 0);
  }

  get nonce(): string {
    return this.duplicates.nonce;
  }

  get leaderKey(): string {
    return this.keys.leader();
  }

  get epochKey(): string {
    return this.keys.leaderEpoch();
  }

  /** Holds the nonce of the process start that last campaigned under this instance id. */
  get candidateKey(): string {
    return this.keys.leaderCandidate(this.opts.instanceId);
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
      // Redis trouble is reported by the lease command of the same tick.
      const presence = this.announce().catch(() => undefined);
      const held = this.leadership;
      if (held) {
        const ok = await this.redis.leaderRenew(this.leaderKey, held.token, this.opts.leaseMs);
        if (ok === 1 && this.current === held) this.deadline = sentAt + this.opts.leaseMs;
        else if (ok !== 1) this.demote('lease lost to another instance');
      } else if (!this.stopped) {
        const [epoch, value] = await this.redis.leaderAcquire(
          this.leaderKey,
          this.epochKey,
          this.holder,
          this.opts.leaseMs,
        );
        if (epoch > 0 && !this.stopped) {
          this.deadline = sentAt + this.opts.leaseMs;
          this.promote({ epoch, token: value });
        } else if (epoch === 0) this.noteHolder(value);
      }
      await presence;
    } catch (err) {
      // Redis unreachable: keep trying; the local deadline demotes us in time if this persists.
      this.log?.warn({ err: (err as Error).message }, 'leader lease check failed');
    } finally {
      this.ticking = false;
      this.armDeadline();
      this.schedule();
    }
  }

  /** Writes this start's nonce under the instance id and checks what it replaced. */
  private async announce(): Promise<void> {
    const res = await this.redis
      .multi()
      .get(this.candidateKey)
      .set(this.candidateKey, this.nonce, 'PX', this.opts.leaseMs)
      .exec();
    const [err, found] = res?.[0] ?? [null, null];
    if (err) throw err;
    const other = this.duplicates.observe(found as string | null);
    if (!other) return;
    this.log?.error(
      { instanceId: this.opts.instanceId, nonce: this.nonce, otherNonce: other },
      `duplicate DROVER_INSTANCE_ID "${this.opts.instanceId}": another running scheduler process uses it; ` +
        'give every process its own id (leader election keeps them apart, but logs and metrics cannot)',
    );
    this.emit('duplicate', other);
  }

  /** The lease is held by someone else; say so once if it is another start of this instance id. */
  private noteHolder(value: string): void {
    if (!value.startsWith(`${this.opts.instanceId}|`) || this.sightings.has(value)) return;
    this.sightings.add(value);
    this.log?.warn(
      { instanceId: this.opts.instanceId, nonce: this.nonce, lease: value },
      `the leader lease is held under DROVER_INSTANCE_ID "${this.opts.instanceId}" by another process start ` +
        '(an earlier one that did not release it, or a duplicate); waiting for it like any other candidate',
    );
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
