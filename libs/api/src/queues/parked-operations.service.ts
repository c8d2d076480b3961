import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@drover/config';
import { Clock } from '@drover/redis';
import { FlowParentNotReplayableError, NotParkedError, RunStore } from '@drover/store';
import { ApiEvents, OPERATION_HEARTBEAT_MS, OperationStore, type Operation, type OperationKind } from '@drover/store';
import { isoOf } from '../http/api-time';
import { compileParkedFilter, type ParkedFilterInput } from './parked-filter';
import { matchingParkedIds } from './parked-scan';
import { burstFor, TokenBucket } from './token-bucket';

/**
 * Bulk operation rates (parked runs handled per second). Replays are what must not flood the
 * workers; purges only delete, so they may go faster. A request may ask for any rate up to the
 * maximum.
 */
export const BULK_RATES = {
  replay: { default: 100, max: 1000 },
  purge: { default: 1000, max: 1000 },
} as const satisfies Record<OperationKind, { default: number; max: number }>;

interface Running {
  op: Operation;
  finished: Promise<void>;
}

/**
 * Replays or purges every parked run of a queue that a filter selects, in the background of this
 * api process and paced by a {@link TokenBucket}. The runs are chosen when the operation starts
 * (runs parked later wait for the next one); a run that is gone by its turn (replayed or purged
 * by someone else) is skipped. Progress goes to the operation's record in Redis and, as
 * `operation` events, to every replica's `/events` stream.
 *
 * If this process dies, the operation stops where it was: its record stays `running` without a
 * heartbeat and reads as `abandoned`; running it again handles what is still parked. On a
 * graceful shutdown it ends `failed`, saying so.
 */
@Injectable()
export class ParkedOperations implements OnApplicationShutdown {
  private readonly logger = new Logger('ParkedOperations');
  private readonly running = new Map<string, Running>();
  private stopping = false;

  constructor(
    private readonly runs: RunStore,
    private readonly store: OperationStore,
    private readonly events: ApiEvents,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /** How many parked runs of `queue` the filter selects now (a dry run). */
  async count(queue: string, filter: ParkedFilterInput): Promise<number> {
    return (await matchingParkedIds(this.runs, queue, compileParkedFilter(filter))).length;
  }

  /** Starts an operation and answers once its runs are chosen and its record is written. */
  async start(req: {
    kind: OperationKind;
    queue: string;
    filter: ParkedFilterInput;
    ratePerSecond?: number;
    by: string;
  }): Promise<Operation> {
    const ids = await matchingParkedIds(this.runs, req.queue, compileParkedFilter(req.filter));
    const now = this.clock.now();
    const op: Operation = {
      id: randomUUID(),
      kind: req.kind,
      queue: req.queue,
      status: 'running',
      filter: req.filter,
      ratePerSecond: req.ratePerSecond ?? BULK_RATES[req.kind].default,
      matched: ids.length,
      done: 0,
      skipped: 0,
      failed: 0,
      by: req.by,
      instance: this.config.env.instanceId,
      startedAt: now,
      heartbeatAt: now,
    };
    await this.store.write(op);
    const finished = this.execute(op, ids).finally(() => this.running.delete(op.id));
    this.running.set(op.id, { op, finished });
    return op;
  }

  private async execute(op: Operation, ids: string[]): Promise<void> {
    const bucket = new TokenBucket(op.ratePerSecond, burstFor(op.ratePerSecond), this.clock.now());
    let reported = -1;
    const flush = async (): Promise<void> => {
      op.heartbeatAt = this.clock.now();
      const { done, skipped, failed, heartbeatAt, error } = op;
      await this.store.write({ id: op.id, done, skipped, failed, heartbeatAt, error }).catch(() => undefined);
      if (op.done !== reported && op.status === 'running') {
        reported = op.done;
        await this.publish(op, 'progress');
      }
    };
    const heartbeat = setInterval(() => void flush(), OPERATION_HEARTBEAT_MS);
    heartbeat.unref();
    try {
      for (const id of ids) {
        if (this.stopping) {
          op.status = 'failed';
          op.error = `the api process shut down after ${op.done} of ${op.matched} runs; run the operation again for the rest`;
          break;
        }
        const wait = bucket.take(this.clock.now());
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        await this.handle(op, id);
        op.done++;
      }
      if (op.status === 'running') op.status = 'done';
    } finally {
      clearInterval(heartbeat);
      op.finishedAt = this.clock.now();
      await flush();
      await this.store
        .write({ id: op.id, status: op.status, finishedAt: op.finishedAt, error: op.error })
        .catch((err: Error) => this.logger.warn(`could not record the end of operation ${op.id}: ${err.message}`));
      await this.publish(op, 'done');
    }
  }

  private async handle(op: Operation, id: string): Promise<void> {
    try {
      if (op.kind === 'replay') await this.runs.replayParked(op.queue, id);
      else if ((await this.runs.purgeParked(op.queue, id)) === 0) op.skipped++;
    } catch (err) {
      if (err instanceof NotParkedError || err instanceof FlowParentNotReplayableError) {
        op.skipped++;
        return;
      }
      op.failed++;
      op.error = `run ${id}: ${(err as Error).message}`;
    }
  }

  private publish(op: Operation, action: 'progress' | 'done'): Promise<void> {
    return this.events.publish({
      kind: 'operation',
      action,
      id: op.id,
      at: isoOf(this.clock.now()),
      data: {
        kind: op.kind,
        queue: op.queue,
        status: op.status,
        matched: op.matched,
        done: op.done,
        skipped: op.skipped,
        failed: op.failed,
      },
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.running.values()].map((r) => r.finished.catch(() => undefined)));
  }
}
