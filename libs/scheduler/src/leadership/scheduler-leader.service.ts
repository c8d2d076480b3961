import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppConfig } from '@drover/config';
import { LOGGER } from '@drover/logger';
import { DroverMetrics, ROUTINE_STATUSES } from '@drover/metrics';
import { Clock } from '@drover/platform';
import { DroverKeys, RedisConnections, type RedisClient } from '@drover/redis';
import { BullQueues, QueueRegistry, WorkerCatalog } from '@drover/store';
import { exportQueueGauges } from './queue-gauges';
import { Dispatcher, StaleLeaderError } from '../fires/dispatcher.service';
import { Reconciler } from '../reconcile/reconciler.service';
import { overdueSlot } from '../reconcile/watchdog';
import { LeaderElector, type Leadership } from './leader-elector';
import { SCHEDULER_OPTIONS, type SchedulerOptions } from '../scheduler-options';

/**
 * Everything only the leader does: apply the policy file, reconcile Job Schedulers, catch up and
 * repair overdue routines (watchdog), and export cluster-wide gauges. Started on `elected`,
 * stopped on `demoted`; every write checks the lease and is fenced in Lua.
 */
@Injectable()
export class SchedulerLeaderService implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly elector: LeaderElector;
  private lead?: Leadership;
  private timers: NodeJS.Timeout[] = [];
  private subscriber?: RedisClient;
  private running = Promise.resolve();

  constructor(
    private readonly config: AppConfig,
    private readonly conns: RedisConnections,
    private readonly keys: DroverKeys,
    private readonly reconciler: Reconciler,
    private readonly dispatcher: Dispatcher,
    private readonly metrics: DroverMetrics,
    private readonly clock: Clock,
    private readonly queues: QueueRegistry,
    private readonly bull: BullQueues,
    private readonly catalog: WorkerCatalog,
    @Inject(SCHEDULER_OPTIONS) private readonly opts: SchedulerOptions,
    @Inject(LOGGER) private readonly log: Logger,
  ) {
    this.elector = new LeaderElector(
      conns.open('command', 'leader'),
      keys,
      { instanceId: config.env.instanceId, leaseMs: config.env.leaderTtlMs },
      log,
      metrics,
    );
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
    const bundle = this.config.bundle;
    if (bundle) {
      await this.queues.put(bundle.queues, { origin: 'file', now: this.clock.now() });
      const diff = await this.reconciler.routines.applyFileRoutines(bundle.routines, this.clock.now());
      this.log.info({ ...diff, unchanged: diff.unchanged.length }, 'applied DROVER_CONFIG');
    }
    if (!this.isCurrent()) return;
    await this.reconciler.reconcileAll(l, this.isCurrent);
    await this.watchdogPass();
    this.subscriber = this.conns.open('command', 'routine-changes');
    await this.subscriber.subscribe(this.reconciler.routines.changesChannel);
    this.subscriber.on('message', (_ch: string, name: string) => {
      void this.serial(async () => {
        if (!this.lead || !this.isCurrent()) return;
        if (name !== '*') await this.dispatcher.disarm(name);
        // '*' announces a bulk change: reconcile everything (diff-based, so cheap).
        if (name === '*') await this.reconciler.reconcileAll(this.lead, this.isCurrent);
        else await this.reconciler.reconcileOne(name, this.lead, this.isCurrent);
      });
    });
    this.every(this.opts.watchdogEveryMs, () => this.watchdogPass());
    this.every(this.opts.reconcileEveryMs, async () => {
      if (this.lead && this.isCurrent()) await this.reconciler.reconcileAll(this.lead, this.isCurrent);
    });
    this.every(this.opts.gaugesEveryMs, () => this.exportGauges());
  }

  private onDemoted(): void {
    this.lead = undefined;
    this.timers.forEach(clearInterval);
    this.timers = [];
    const sub = this.subscriber;
    this.subscriber = undefined;
    sub?.disconnect();
    // Cluster-wide gauges come from the leader only, so sums across pods never double count.
    this.metrics.routines.reset();
    this.metrics.queueJobs.reset();
    this.metrics.queueWorkers.reset();
    this.metrics.queueGlobalConcurrency.reset();
  }

  private every(ms: number, step: () => Promise<void>): void {
    const t = setInterval(() => void this.serial(step), ms);
    t.unref();
    this.timers.push(t);
  }

  /** Finds routines whose next slot is overdue (lost fire, downtime) and dispatches them. */
  private async watchdogPass(): Promise<void> {
    if (!this.lead || !this.isCurrent()) return;
    const records = await this.reconciler.routines.list();
    const states = await this.reconciler.routines.getStates(records.map((r) => r.def.name));
    const now = this.clock.now();
    for (const rec of records) {
      const due = overdueSlot(rec.def, states.get(rec.def.name)!, rec.createdAt, now, this.opts.watchdogToleranceMs);
      if (due === undefined) continue;
      if (!this.isCurrent()) return;
      this.metrics.watchdogRepairs.inc();
      const res = await this.dispatcher.dispatchDue(rec.def.name, now, this.lead.token);
      this.log.warn(
        {
          routine: rec.def.name,
          overdueSince: new Date(due).toISOString(),
          enqueued: res?.enqueued.length,
          skipped: res?.skipped.length,
        },
        'watchdog: routine was overdue; caught up and re-armed its schedule',
      );
      await this.reconciler.reconcileOne(rec.def.name, this.lead, this.isCurrent, true);
    }
  }

  private async exportGauges(): Promise<void> {
    if (!this.isCurrent()) return;
    const records = await this.reconciler.routines.list();
    for (const status of ROUTINE_STATUSES) {
      this.metrics.routines.set({ status }, records.filter((r) => r.def.status === status).length);
    }
    await exportQueueGauges(this.metrics, { registry: this.queues, bull: this.bull, catalog: this.catalog });
  }
}
