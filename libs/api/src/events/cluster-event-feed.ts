import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { isCanceledMarker, QueueRegistry, RoutineStore, RunStore } from '@drover/store';
import { Clock, RedisConnections, ResilientSubscriber } from '@drover/redis';
import type { RunStatus } from '@drover/core';
import { isoOf } from '../http/api-time';
import { QueueEventHub, type QueueEvent } from '@drover/store';
import { ApiEvents } from '@drover/store';
import { RecentStatuses } from './recent-statuses';

/** What a queue event says about the run's status without reading it; `read` = ask the run view. */
function statusOfEvent(e: QueueEvent): RunStatus | 'read' | undefined {
  switch (e.event) {
    case 'waiting':
      return 'queued';
    case 'active':
      return 'running';
    case 'completed':
      return isCanceledMarker(e.args.returnvalue) ? 'canceled' : 'succeeded';
    case 'failed':
      // BullMQ reports `failed` only when a job moves to its failed set: Drover's parked runs.
      return 'parked';
    case 'delayed': // a future runAt (scheduled) or a retry's backoff (queued)
    case 'removed': // canceled before it started, or purged
      return 'read';
    default:
      // `added` is followed by `waiting` or `delayed`; `stalled` by `waiting` or `failed`.
      return undefined;
  }
}

/**
 * Feeds the cluster-wide event stream (`GET /events`) of this replica: run status changes and
 * progress of every queue (BullMQ queue events), queue pause/resume and policy changes, and
 * routine changes (the stores' pub/sub channels), all into {@link ApiEvents} as local events —
 * every replica reads the same sources, so nothing is republished. Starts with the first
 * subscriber and runs until shutdown.
 */
@Injectable()
export class ClusterEventFeed implements OnApplicationShutdown {
  private readonly logger = new Logger('ClusterEventFeed');
  private started?: Promise<void>;
  private subscriber?: ResilientSubscriber;
  private unlisten?: () => void;
  private readonly statuses = new RecentStatuses(10_000);

  constructor(
    private readonly hub: QueueEventHub,
    private readonly events: ApiEvents,
    private readonly runs: RunStore,
    private readonly routines: RoutineStore,
    private readonly registry: QueueRegistry,
    private readonly connections: RedisConnections,
    private readonly clock: Clock,
  ) {}

  /** Resolves once every source is being read (idempotent). */
  start(): Promise<void> {
    this.started ??= this.listen().catch((err: unknown) => {
      this.started = undefined;
      throw err;
    });
    return this.started;
  }

  private async listen(): Promise<void> {
    this.unlisten = this.hub.onEvery((e) => void this.onQueueEvent(e));
    this.subscriber = await ResilientSubscriber.start({
      open: () => this.connections.open('command', 'api-changes'),
      channels: [this.routines.changesChannel, this.registry.changesChannel],
      onMessage: (channel, message) => {
        if (channel === this.routines.changesChannel) void this.onRoutineChange(message);
        else if (channel === this.registry.changesChannel) void this.onQueuesChange();
      },
      // Changes announced while the connection was down reached nobody: tell consoles that
      // anything may have changed (as a bulk change does), and watch queues defined meanwhile.
      onResync: async () => {
        await this.onRoutineChange('*');
        await this.onQueuesChange();
      },
    });
    await this.watchAllQueues();
  }

  private async watchAllQueues(): Promise<void> {
    const queues = (await this.registry.list()).map((r) => r.def.name);
    await Promise.all(queues.map((q) => this.hub.watch(q)));
  }

  private emit(kind: 'run' | 'routine' | 'queue', action: string, id: string, data?: Record<string, unknown>): void {
    this.events.emitLocal({ kind, action, id, at: isoOf(this.clock.now()), ...(data && { data }) });
  }

  private async onQueueEvent(e: QueueEvent): Promise<void> {
    try {
      if (e.event === 'paused' || e.event === 'resumed') return this.emit('queue', e.event, e.queue);
      if (!e.jobId) return;
      if (e.event === 'progress') {
        return this.emit('run', 'progress', e.jobId, { queue: e.queue, progress: e.args.data });
      }
      const said = statusOfEvent(e);
      if (!said) return;
      let status: RunStatus | undefined = said === 'read' ? undefined : said;
      if (said === 'read') {
        const view = await this.runs.get(e.jobId, e.queue);
        if (!view) {
          this.statuses.forget(e.jobId);
          return this.emit('run', 'removed', e.jobId, { queue: e.queue });
        }
        status = view.status;
      }
      if (status && this.statuses.changed(e.jobId, status)) {
        this.emit('run', 'status', e.jobId, { queue: e.queue, status });
      }
    } catch (err) {
      this.logger.debug(`could not read run ${e.jobId}: ${(err as Error).message}`);
    }
  }

  private async onRoutineChange(name: string): Promise<void> {
    try {
      if (name === '*') return this.emit('routine', 'changed', '*');
      const record = await this.routines.get(name);
      if (!record) return this.emit('routine', 'removed', name);
      this.emit('routine', 'changed', name, { status: record.def.status, version: record.version });
    } catch (err) {
      this.logger.debug(`could not read routine ${name}: ${(err as Error).message}`);
    }
  }

  private async onQueuesChange(): Promise<void> {
    this.emit('queue', 'changed', '*');
    // A queue defined since the feed started: read its events too.
    await this.watchAllQueues().catch((err: unknown) =>
      this.logger.debug(`could not watch new queues: ${(err as Error).message}`),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    this.unlisten?.();
    await this.subscriber?.close();
  }
}
