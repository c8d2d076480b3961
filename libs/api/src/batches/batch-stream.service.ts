import { Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BatchStore, type BatchView } from '@drover/store';
import { SseStreams } from '../events/sse-streams';
import { ProblemError } from '../http/problem';
import { SSE_RETRY_MS } from '../runs/run-event-stream.service';
import { toApiBatch } from './batch-schemas';

/**
 * How often an open batch stream reads its batch (ms). Runs settle on the workers, which announce
 * nothing per batch: each stream reads one hash per second, whatever the batch's size.
 */
export const BATCH_POLL_MS = 1_000;

/**
 * `GET /batches/{id}/stream`: a `progress` event with the batch whenever its counts change (the
 * first at once), then `end` once it is complete and its callbacks were enqueued (or it expired),
 * and the server closes the stream.
 */
@Injectable()
export class BatchStreams {
  private readonly logger = new Logger('BatchStreams');

  constructor(
    private readonly batches: BatchStore,
    private readonly streams: SseStreams,
  ) {}

  /** @throws ProblemError 404 before anything is written. */
  async open(id: string, req: Request, res: Response): Promise<void> {
    let last = await this.batches.get(id);
    if (!last) throw new ProblemError(404, `no batch "${id}" (a batch expires with its runs' retention)`);
    const stream = this.streams.start(req, res, { retryMs: SSE_RETRY_MS });
    let shown = '';
    let busy = false;
    const show = (b: BatchView): void => {
      const key = `${b.settled}/${b.firedAt}`;
      if (key !== shown) stream.send({ event: 'progress', data: toApiBatch(b) });
      shown = key;
      if (b.firedAt !== null) {
        stream.send({ event: 'end', data: { id, status: b.status } });
        stream.end();
      }
    };
    const tick = (): void => {
      if (busy || !stream.isOpen) return;
      busy = true;
      this.batches
        .get(id)
        .then((b) => {
          if (!stream.isOpen) return;
          if (b) return show((last = b));
          stream.send({ event: 'end', data: { id, status: last?.status ?? 'open', expired: true } });
          stream.end();
        })
        .catch((err: unknown) => this.logger.debug(`batch ${id}: ${(err as Error).message}`))
        .finally(() => (busy = false));
    };
    const poll = setInterval(tick, BATCH_POLL_MS);
    poll.unref();
    stream.onClose(() => clearInterval(poll));
    show(last);
  }
}
