import { Injectable } from '@nestjs/common';
import { type Queue } from '@drover/core';
import {
  BullQueues,
  QueueRegistry,
  readQueueCounts,
  RunStore,
  UnknownQueueError,
  WorkerCatalog,
  workersConsuming,
  type QueueRecord,
  type WorkerCatalogEntry,
} from '@drover/store';
import type { z } from 'zod';
import { isoOf } from '../http/api-time';
import type { QueueSchema } from './queue-schemas';

export type QueueView = z.output<typeof QueueSchema>;

/** How many of a queue's concurrency keys its view shows: the busiest (most runs held and running). */
const TOP_KEYS = 20;

/** Queues as the API shows them: policy, origin, paused flag, counts per state, consuming workers. */
@Injectable()
export class QueueViews {
  constructor(
    private readonly registry: QueueRegistry,
    private readonly bull: BullQueues,
    private readonly catalog: WorkerCatalog,
    private readonly runs: RunStore,
  ) {}

  async list(): Promise<QueueView[]> {
    const [records, workers] = await Promise.all([this.registry.list(), this.catalog.list()]);
    return Promise.all(records.map((r) => this.view(r, workers)));
  }

  async get(name: string): Promise<QueueView> {
    const [records, workers] = await Promise.all([this.registry.list(), this.catalog.list()]);
    return this.view(this.find(records, name), workers);
  }

  /** The policy of `name`, or UnknownQueueError (404) naming the defined queues. */
  async require(name: string): Promise<Queue> {
    return this.registry.require(name);
  }

  private find(records: QueueRecord[], name: string): QueueRecord {
    const found = records.find((r) => r.def.name === name);
    if (!found)
      throw new UnknownQueueError(
        name,
        records.map((r) => r.def.name),
      );
    return found;
  }

  private async view(record: QueueRecord, workers: WorkerCatalogEntry[]): Promise<QueueView> {
    const name = record.def.name;
    const [paused, counts, keys] = await Promise.all([
      this.bull.get(name).isPaused(),
      readQueueCounts(this.bull, name),
      // Only a queue that limits runs per key reads its keys.
      record.def.concurrencyKey ? this.runs.keyed.top(name, TOP_KEYS) : undefined,
    ]);
    return {
      name,
      origin: record.origin,
      updatedAt: isoOf(record.updatedAt),
      policy: record.def,
      paused,
      counts: {
        waiting: counts.waiting,
        active: counts.active,
        delayed: counts.delayed,
        prioritized: counts.prioritized,
        parked: counts.parked,
      },
      workers: workersConsuming(workers, name).map((w) => ({
        instanceId: w.instanceId,
        concurrency: w.queues.find((q) => q.name === name)!.concurrency,
        draining: w.draining,
        heartbeatAt: isoOf(w.heartbeatAt),
      })),
      ...(keys && { keys }),
    };
  }

  /** Stops (or restarts) every worker taking runs of the queue: BullMQ's global pause flag. */
  async setPaused(name: string, paused: boolean): Promise<QueueView> {
    await this.registry.require(name);
    const q = this.bull.get(name);
    if (paused) await q.pause();
    else await q.resume();
    return this.get(name);
  }
}
