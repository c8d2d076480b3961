import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Logger } from 'pino';
import { isDeepStrictEqual } from 'node:util';
import { AppConfig } from '@drover/config';
import { DuplicateInstanceWatch, queueSchema, type Queue, type Random } from '@drover/core';
import { LOGGER } from '@drover/logger';
import { DroverMetrics } from '@drover/metrics';
import { RANDOM, ReadinessRegistry } from '@drover/platform';
import { Clock, DroverKeys, RedisConnections, ResilientSubscriber } from '@drover/redis';
import {
  BullQueues,
  cancelChannel,
  decodeCancel,
  QueueRegistry,
  ProducerCodes,
  RunCheckpoints,
  RoutineStatsStore,
  QueueStatsStore,
  RunStore,
  SlotClaims,
  WorkerCatalog,
  type WorkerCatalogEntry,
} from '@drover/store';
import { HandlerRegistry } from './handler-registry.service';
import { PendingCancels } from './pending-cancels';
import { QueueConsumer } from './queue-consumer';
import { RunMetrics } from './run-metrics';
import { RoutineStatsRecorder } from './routine-stats-recorder';
import { WORKER_RUNTIME_OPTIONS, type WorkerRuntimeOptions } from './worker-runtime.options';

const HEARTBEAT_MS = 5_000;
/** Safety net behind the change notifications (a message missed while Redis was away). */
const REFRESH_MS = 30_000;

/**
 * Runs the worker role: one {@link QueueConsumer} per consumed queue (policy from DROVER_CONFIG
 * when given, else from Redis, narrowed by DROVER_QUEUES), cancel requests over pub/sub, the
 * worker's catalog entry for the cluster view, the `consuming` readiness check, and the drain
 * on shutdown. Starts in onApplicationBootstrap without blocking it, so /healthz answers even
 * while Redis is unreachable.
 */
@Injectable()
export class WorkerRuntime implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly consumers = new Map<string, QueueConsumer>();
  private readonly producers: ProducerCodes;
  private readonly checkpoints: RunCheckpoints;
  private readonly pendingCancels: PendingCancels;
  private readonly metrics: RunMetrics;
  private readonly stats: RoutineStatsRecorder;
  private readonly startedAt: number;
  private state: 'starting' | 'running' | 'draining' | 'stopped' = 'starting';
  private lastError?: string;
  private subscriber?: ResilientSubscriber;
  private timers: NodeJS.Timeout[] = [];
  private reconciling: Promise<void> = Promise.resolve();
  private warnedDefaults = new Set<string>();
  private markConsuming!: () => void;
  /** Resolves once the runtime consumes its queues (for embedding and tests; /readyz says the same). */
  readonly consuming: Promise<void> = new Promise((resolve) => (this.markConsuming = resolve));
  private limitsApplied = false;
  /** This process start, in the catalog entry: tells two workers given the same instance id apart. */
  private readonly duplicates = new DuplicateInstanceWatch(randomBytes(6).toString('hex'));

  constructor(
    private readonly config: AppConfig,
    private readonly connections: RedisConnections,
    private readonly keys: DroverKeys,
    private readonly registry: QueueRegistry,
    private readonly bull: BullQueues,
    private readonly catalog: WorkerCatalog,
    private readonly claims: SlotClaims,
    private readonly handlers: HandlerRegistry,
    private readonly readiness: ReadinessRegistry,
    droverMetrics: DroverMetrics,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(WORKER_RUNTIME_OPTIONS) private readonly options: WorkerRuntimeOptions,
    private readonly clock: Clock,
    statsStore: RoutineStatsStore,
    queueStatsStore: QueueStatsStore,
    @Inject(RANDOM) private readonly random: Random,
    private readonly runs: RunStore,
  ) {
    this.metrics = new RunMetrics(droverMetrics);
    this.stats = new RoutineStatsRecorder(statsStore, queueStatsStore, clock, log);
    this.startedAt = clock.now();
    this.pendingCancels = new PendingCancels(clock);
    this.producers = new ProducerCodes(connections.command, keys);
    this.checkpoints = new RunCheckpoints(connections.command, keys);
  }

  onApplicationBootstrap(): void {
    this.readiness.register('consuming', () => this.assertConsuming());
    this.stats.start();
    void this.boot();
  }

  /** Queues this process consumes now. */
  consumedQueues(): Queue[] {
    return [...this.consumers.values()].map((c) => c.policy);
  }

  private assertConsuming(): void {
    if (this.state === 'starting') throw new Error(`starting${this.lastError ? `: ${this.lastError}` : ''}`);
    if (this.state !== 'running') throw new Error(this.state);
    const idle = [...this.consumers.values()].filter((c) => !c.consuming).map((c) => c.name);
    if (idle.length) throw new Error(`not consuming ${idle.join(', ')}`);
  }

  private async boot(): Promise<void> {
    for (let attempt = 1; this.state === 'starting'; attempt++) {
      try {
        await this.subscribe();
        await this.reconcile();
        if (this.state !== 'starting') return;
        this.state = 'running';
        this.lastError = undefined;
        this.markConsuming();
        this.log.info({ queues: [...this.consumers.keys()], jobTypes: this.handlers.jobTypes() }, 'worker consuming');
        void this.heartbeat();
        this.timers.push(setInterval(() => void this.heartbeat(), HEARTBEAT_MS));
        this.timers.push(setInterval(() => this.scheduleReconcile(), REFRESH_MS));
        this.timers.forEach((t) => t.unref());
      } catch (err) {
        this.lastError = (err as Error).message;
        this.log.warn({ err: this.lastError, attempt }, 'worker could not start consuming yet; retrying');
        await new Promise((r) => setTimeout(r, Math.min(250 * 2 ** attempt, 5_000)));
      }
    }
  }

  private async subscribe(): Promise<void> {
    if (this.subscriber) return;
    const channels = [cancelChannel(this.keys)];
    // With a policy file the file is the authority; otherwise follow the queue registry.
    if (!this.config.bundle) channels.push(this.registry.changesChannel);
    this.subscriber = await ResilientSubscriber.start({
      open: () => this.connections.open('blocking', 'worker-sub'),
      channels,
      onMessage: (channel, message) => {
        if (channel === cancelChannel(this.keys)) this.onCancel(message);
        else this.scheduleReconcile();
      },
      // What was announced while the connection was down reached nobody: a cancel is also
      // recorded on its run, and a policy change in the registry, so read both again.
      onResync: async () => {
        this.scheduleReconcile();
        await this.recheckCancels();
      },
      onError: (err) => this.log.warn({ err: err.message }, 'could not re-read cancels after a reconnect'),
    });
  }

  /** Aborts the held runs whose cancel was recorded (on the run) but not heard of. */
  private async recheckCancels(): Promise<void> {
    const found = await Promise.all([...this.consumers.values()].map((c) => c.recheckCancels()));
    const n = found.reduce((a, b) => a + b, 0);
    if (n) this.log.info({ runs: n }, 'canceled runs whose cancel was published while the worker was disconnected');
  }

  private onCancel(raw: string): void {
    const msg = decodeCancel(raw);
    if (!msg) return;
    const held = this.consumers.get(msg.queue)?.cancel(msg.id, msg.reason) ?? false;
    if (held) this.log.info({ runId: msg.id, queue: msg.queue, reason: msg.reason }, 'canceling running run');
    else this.pendingCancels.add(msg.id, msg.reason);
  }

  private scheduleReconcile(): void {
    this.reconciling = this.reconciling
      .then(() => this.reconcile())
      .catch((err: unknown) => this.log.warn({ err: (err as Error).message }, 'queue reconcile failed'));
  }

  private async desiredPolicies(): Promise<Map<string, Queue>> {
    const bundle = this.config.bundle;
    const defined = bundle ? bundle.queues : (await this.registry.list()).map((r) => r.def);
    if (bundle && !this.limitsApplied) {
      for (const q of bundle.queues) await this.registry.applyLimits(q);
      this.limitsApplied = true;
    }
    const byName = new Map(defined.map((q) => [q.name, q]));
    // A queue with a processor of its own (@nestjs/bullmq) is consumed like a defined one.
    const wanted = this.options.queues ?? this.config.env.queues;
    if (!wanted && this.handlers.queues().every((name) => byName.has(name))) return byName;
    const names = wanted ?? [...new Set([...byName.keys(), ...this.handlers.queues()])];
    const where = wanted ? 'in DROVER_QUEUES' : 'of a processor';
    return new Map(
      names.map((name) => {
        const def = byName.get(name);
        if (!def && !this.warnedDefaults.has(name)) {
          this.warnedDefaults.add(name);
          this.log.warn({ queue: name }, `queue "${name}" ${where} has no policy; consuming it with defaults`);
        }
        return [name, def ?? queueSchema.parse({ name })];
      }),
    );
  }

  private async reconcile(): Promise<void> {
    if (this.stopping) return;
    const desired = await this.desiredPolicies();
    // The process may have started draining while the policies were read.
    if (this.stopping) return;
    for (const [name, consumer] of this.consumers) {
      if (desired.has(name)) continue;
      this.consumers.delete(name);
      this.log.info({ queue: name }, 'queue no longer consumed; draining its consumer');
      void consumer.drain(this.config.env.shutdownGraceMs);
    }
    for (const [name, def] of desired) {
      const current = this.consumers.get(name);
      if (current && isDeepStrictEqual({ ...current.policy, concurrency: 0 }, { ...def, concurrency: 0 })) {
        if (current.policy.concurrency !== def.concurrency) current.setConcurrency(def.concurrency);
        continue;
      }
      const consumer = new QueueConsumer(structuredClone(def), {
        connections: this.connections,
        keys: this.keys,
        bull: this.bull,
        handlers: this.handlers,
        metrics: this.metrics,
        stats: this.stats,
        log: this.log,
        instanceId: this.config.env.instanceId,
        pendingCancels: this.pendingCancels,
        claims: this.claims,
        clock: this.clock,
        random: this.random,
        producers: this.producers,
        checkpoints: this.checkpoints,
        flows: this.runs.flows,
        armLeadMs: this.config.env.armLeadMs,
        startBuffered: (routine) => this.runs.startBuffered(routine),
        settleBatchRun: (batch, id, outcome) => this.runs.batches.settle(batch, id, outcome),
        settleKeyedRun: (queue, key, limit, id) => this.runs.keyed.settle(queue, key, limit, id),
        repairKeys: (queue, limit) => this.runs.keyed.repair(queue, limit),
      });
      consumer.start();
      this.consumers.set(name, consumer);
      if (this.state === 'running') this.log.info({ queue: name }, 'consuming queue');
      if (current) {
        this.log.info({ queue: name }, 'queue policy changed; replacing its consumer');
        void current.drain(this.config.env.shutdownGraceMs);
      }
    }
  }

  private get stopping(): boolean {
    return this.state === 'draining' || this.state === 'stopped';
  }

  private async heartbeat(): Promise<void> {
    const now = this.clock.now();
    try {
      const replaced = await this.catalog.publish(
        {
          instanceId: this.config.env.instanceId,
          nonce: this.duplicates.nonce,
          version: this.options.version ?? '0.0.0',
          pid: process.pid,
          hostname: hostname(),
          queues: [...this.consumers.values()].map((c) => ({ name: c.name, concurrency: c.policy.concurrency })),
          jobTypes: this.handlers.jobTypes(),
          startedAt: this.startedAt,
          heartbeatAt: now,
          draining: this.state === 'draining',
        },
        HEARTBEAT_MS * 3,
      );
      if (replaced && this.duplicates.observe(replaced.nonce)) this.logDuplicate(replaced);
    } catch (err) {
      this.log.debug({ err: (err as Error).message }, 'worker heartbeat failed');
    }
  }

  private logDuplicate(other: WorkerCatalogEntry): void {
    const id = this.config.env.instanceId;
    this.log.error(
      {
        instanceId: id,
        nonce: this.duplicates.nonce,
        other: { nonce: other.nonce, pid: other.pid, hostname: other.hostname },
      },
      `duplicate DROVER_INSTANCE_ID "${id}": another running worker process uses it ` +
        `(pid ${other.pid} on ${other.hostname}); give every process its own id — the cluster view shows only one ` +
        'of them and runs record the same worker for both',
    );
  }

  /** SIGTERM: stop taking runs, let running ones finish within the grace period, hand back the rest. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'draining';
    this.timers.forEach((t) => clearInterval(t));
    this.timers = [];
    void this.heartbeat();
    const graceMs = this.config.env.shutdownGraceMs;
    const consumers = [...this.consumers.values()];
    this.log.info({ graceMs, queues: consumers.map((c) => c.name) }, 'draining: letting running runs finish');
    await Promise.all(consumers.map((c) => c.drain(graceMs)));
    this.consumers.clear();
    await this.stats.stop();
    this.state = 'stopped';
    await this.catalog.remove(this.config.env.instanceId).catch(() => undefined);
    this.log.info('drained');
  }

  async onApplicationShutdown(): Promise<void> {
    // Normally done by beforeApplicationShutdown; covers a context closed without it.
    await this.beforeApplicationShutdown();
    const sub = this.subscriber;
    this.subscriber = undefined;
    await sub?.close();
  }
}
