import { Inject, Injectable, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppConfig } from '@drover/config';
import { LOGGER } from '@drover/logger';
import { DroverMetrics } from '@drover/metrics';
import { Clock, RedisConnections, ResilientSubscriber, StaleLeaderError } from '@drover/redis';
import { BatchStore, BullQueues, QueueRegistry, RoutineStore, WorkerCatalog } from '@drover/store';
import { Disarmer } from '../fires/disarmer';
import { Reconciler } from '../reconcile/reconciler.service';
import { Watchdog } from '../reconcile/watchdog.service';
import { SCHEDULER_OPTIONS, type SchedulerOptions } from '../scheduler-options';
import { LeaderElector, type Leadership } from './leader-elector';
import { pacedStep } from './paced-step';
import { exportQueueGauges } from './queue-gauges';

/**
 * Everything only the leader does: apply the policy file, reconcile Job Schedulers (and write those
 * left for later as their first slot comes within the horizon), withdraw runs
 * armed for an old definition, ask for repairs of overdue routines (watchdog), and export
 * cluster-wide gauges. Started on `elected`, stopped on `demoted`; every write is fenced in Lua or
 * re-checked against the lease right before it is made. Nothing here evaluates condition checks:
 * dispatching is the fires consumers' job, on every replica.
 */
@Injectable()
export class SchedulerLeaderService implements OnApplicationBootstrap, OnApplicationShutdown {
  private lead?: Leadership;
  private timers: NodeJS.Timeout[] = [];
  private subscriber?: ResilientSubscriber;
  private running = Promise.resolve();

  constructor(
    private readonly config: AppConfig,
    private readonly conns: RedisConnections,
    readonly elector: LeaderElector,
    private readonly routines: RoutineStore,
    private readonly reconciler: Reconciler,
    private readonly watchdog: Watchdog,
    private readonly disarmer: Disarmer,
    private readonly metrics: DroverMetrics,
    private readonly clock: Clock,
    private readonly queues: QueueRegistry,
    private readonly bull: BullQueues,
    private readonly catalog: WorkerCatalog,
    @Inject(SCHEDULER_OPTIONS) private readonly opts: SchedulerOptions,
    @Inject(LOGGER) private readonly log: Logger,
    @Optional() private readonly batches?: BatchStore,
  ) {
    this.elector.on('elected', (l: Leadership) => this.serial(() => this.onElected(l)));
    this.elector.on('demoted', () => this.onDemoted());
  }

  onApplicationBootstrap(): void {
    this.elector.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.elector.stop();
    this.onDemoted();
    await this.running.catch(() => undefined);
  }

  private isCurrent = (): boolean => this.lead !== undefined && this.elector.leadership?.token === this.lead.token;

  /** Leader work runs one step at a time so a reconcile never interleaves with a watchdog pass. */
  private serial(step: () => Promise<void>): Promise<void> {
    this.running = this.running.then(step).catch((err: unknown) => {
      if (err instanceof StaleLeaderError) this.log.warn({ err: err.message }, 'leader work refused: epoch is stale');
      else this.log.error({ err }, 'leader work failed');
    });
    return this.running;
  }

  private async onElected(l: Leadership): Promise<void> {
    this.lead = l;
    if (!this.isCurrent()) return;
    // Listen before reading: a change stored after the first full reconcile began is then either
    // in it or announced to us (handled after this step, as leader work is serial), never neither.
    await this.listenForChanges();
    await this.applyPolicyFile(l);
    await this.catchUp(l);
    this.every(this.opts.watchdogEveryMs, async () => {
      if (this.lead && this.isCurrent()) await this.watchdog.pass(this.lead, this.isCurrent);
    });
    this.every(this.opts.watchdogEveryMs, async () => {
      if (this.lead && this.isCurrent()) await this.reconciler.writeDue(this.lead, this.isCurrent);
    });
    this.every(this.opts.reconcileEveryMs, async () => {
      if (this.lead && this.isCurrent()) await this.reconcileChanged(this.lead);
    });
    this.every(this.opts.fullPassEveryMs, async () => {
      if (this.lead && this.isCurrent()) await this.fullPass(this.lead);
    });
    this.every(this.opts.gaugesEveryMs, () => this.exportGauges());
  }

  /**
   * Everything announced while nobody listened: the changes since the last complete reconcile (a
   * full pass when they cannot be known, or the watchdog's index may be incomplete), then the
   * watchdog's withdrawals and repairs.
   */
  private async catchUp(l: Leadership): Promise<void> {
    if ((await this.reconciler.onElection(l, this.isCurrent)) === 'full') await this.fullPass(l);
    await this.watchdog.pass(l, this.isCurrent);
  }

  /** The routines changed since the last pass (nothing read when nothing changed), else a full pass. */
  private async reconcileChanged(l: Leadership): Promise<void> {
    if (!(await this.reconciler.reconcileChanged(l, this.isCurrent))) await this.fullPass(l);
  }

  /**
   * Reads every routine once: reconciles them all, rebuilds the watchdog's index and starts buffered
   * runs left waiting (see Watchdog.repairBuffered) from the same read.
   */
  private async fullPass(l: Leadership): Promise<void> {
    const snap = await this.reconciler.snapshot();
    await this.reconciler.reconcileAll(l, this.isCurrent, snap);
    await this.watchdog.rebuild(l, snap);
    await this.watchdog.repairBuffered(snap, this.isCurrent);
  }

  private async listenForChanges(): Promise<void> {
    // Set once started; a resync may come before (a loss during the first SUBSCRIBE).
    const mine: { sub?: ResilientSubscriber } = {};
    mine.sub = await ResilientSubscriber.start({
      open: () => this.conns.open('command', 'routine-changes'),
      channels: [this.routines.changesChannel],
      onMessage: (_ch, name) => {
        void this.serial(async () => {
          if (!this.lead || !this.isCurrent()) return;
          // '*' announces a bulk change: every routine it made is in the change log.
          if (name === '*') return void (await this.reconcileChanged(this.lead));
          await this.disarmChanged(name);
          await this.reconciler.reconcileOne(name, this.lead, this.isCurrent);
        });
      },
      // What was published while the connection was down reached nobody: catch up on everything.
      onResync: () => {
        void this.serial(async () => {
          if (this.subscriber !== mine.sub || !this.lead || !this.isCurrent()) return;
          this.log.info('routine change feed reconnected: reconciling everything it may have missed');
          await this.catchUp(this.lead);
        });
      },
    });
    this.subscriber = mine.sub;
  }

  /** DROVER_CONFIG, applied with every write fenced by this leadership (a stale leader writes nothing). */
  private async applyPolicyFile(l: Leadership): Promise<void> {
    const bundle = this.config.bundle;
    if (!bundle) return;
    const now = this.clock.now();
    await this.queues.put(bundle.queues, { origin: 'file', now, token: l.token, isCurrent: this.isCurrent });
    const diff = await this.routines.applyFileRoutines(bundle.routines, now, { token: l.token });
    this.log.info({ ...diff, unchanged: diff.unchanged.length }, 'applied DROVER_CONFIG');
  }

  /** Withdraws the runs of `name` armed for a definition that is not the current one. */
  private async disarmChanged(name: string): Promise<void> {
    const { record, state } = await this.routines.getWithState(name);
    if (!record) {
      const pending = (await this.routines.pendingDisarms()).get(name);
      if (!pending) return;
      await this.disarmer.disarm(name, pending, { refire: false, why: 'the routine was deleted' });
      await this.routines.clearPendingDisarms(name);
      return;
    }
    const stale = state.armed.filter((e) => e.version !== record.version);
    if (stale.length) await this.disarmer.disarm(name, stale, { refire: true, why: 'the routine changed' });
    // An operator's skip of an armed slot is announced like a change.
    await this.disarmer.disarmSkipped(
      name,
      state.armed.filter((e) => e.version === record.version),
    );
  }

  private onDemoted(): void {
    this.lead = undefined;
    this.timers.forEach(clearInterval);
    this.timers = [];
    const sub = this.subscriber;
    this.subscriber = undefined;
    void sub?.close();
    // Cluster-wide gauges come from the leader only, so sums across pods never double count.
    this.metrics.routines.reset();
    this.metrics.queueJobs.reset();
    this.metrics.runsAwaitingApproval.reset();
    this.metrics.queueWorkers.reset();
    this.metrics.queueGlobalConcurrency.reset();
    this.metrics.queueConcurrency.reset();
    this.metrics.batchesOpen.reset();
  }

  private every(ms: number, step: () => Promise<void>): void {
    this.timers.push(pacedStep(ms, (run) => this.serial(run), step));
  }

  private async exportGauges(): Promise<void> {
    if (!this.isCurrent()) return;
    // The routine counts are set by the watchdog pass, which reads every routine anyway.
    await exportQueueGauges(this.metrics, {
      registry: this.queues,
      bull: this.bull,
      catalog: this.catalog,
      redis: this.conns.command,
      ...(this.batches && { batches: this.batches }),
    });
  }
}
