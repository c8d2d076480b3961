import { Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { RunNotFoundError } from '@drover/core';
import { QueueEventHub, RunStore, type RunView } from '@drover/store';
import { SseStreams } from '../events/sse-streams';
import type { SseStream } from '../events/sse-stream';
import { isSettled, runChanges } from './run-changes';

/** The reconnection delay suggested to clients (ms). */
export const SSE_RETRY_MS = 3_000;

/**
 * `GET /runs/{id}/events`: the run's current state first, then its changes, driven by the queue's
 * BullMQ events (each one only a nudge to re-read the run view; each keep-alive tick re-reads too,
 * so even a lost event delays an update by at most one tick). After a settled status the server
 * sends `end` and closes the stream.
 */
@Injectable()
export class RunEventStreams {
  private readonly logger = new Logger('RunEvents');

  constructor(
    private readonly runs: RunStore,
    private readonly hub: QueueEventHub,
    private readonly streams: SseStreams,
  ) {}

  /** @throws RunNotFoundError before anything is written, so the caller gets a 404 problem. */
  async open(id: string, req: Request, res: Response): Promise<void> {
    const first = await this.runs.get(id);
    if (!first) throw new RunNotFoundError(id);
    if (isSettled(first)) {
      const stream = this.streams.start(req, res, { retryMs: SSE_RETRY_MS });
      this.show(stream, undefined, first);
      return;
    }
    await this.hub.watch(first.queue);
    let shown: RunView | undefined;
    let reading = false;
    let again = false;
    const read = async (): Promise<void> => {
      do {
        again = false;
        const view = await this.runs.get(id, first.queue);
        if (!stream.isOpen) return;
        if (!view) {
          // Gone without a record (purged, or removed by retention): nothing more will happen.
          stream.send({ event: 'removed', data: { id } });
          return stream.end();
        }
        shown = this.show(stream, shown, view);
      } while (again && stream.isOpen);
    };
    // Serialised re-reads: a nudge during a read schedules exactly one more.
    const nudge = () => {
      if (!stream.isOpen) return;
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      read()
        .catch((err: unknown) => this.logger.debug(`run ${id}: ${(err as Error).message}`))
        .finally(() => (reading = false));
    };
    const stream = this.streams.start(req, res, { retryMs: SSE_RETRY_MS, onTick: nudge });
    // Listening before the first read: a change after it is either in the read or a nudge.
    stream.onClose(this.hub.onJob(first.queue, id, nudge));
    nudge();
  }

  /** Sends what changed since `shown`; ends the stream once the run has settled. */
  private show(stream: SseStream, shown: RunView | undefined, view: RunView): RunView {
    for (const e of runChanges(shown, view)) stream.send(e);
    if (isSettled(view)) {
      stream.send({ event: 'end', data: { id: view.id, status: view.status } });
      stream.end();
    }
    return view;
  }
}
