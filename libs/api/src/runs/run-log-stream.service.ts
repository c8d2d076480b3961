import { Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { RunNotFoundError } from '@drover/core';
import { QueueEventHub, RunStore } from '@drover/store';
import { SseStreams } from '../events/sse-streams';
import { isSettled } from './run-changes';
import { SSE_RETRY_MS } from './run-event-stream.service';
import { toApiLogLine } from './run-log-schema';

/**
 * How often a follower's stream looks for new lines while its run is active (ms). BullMQ announces
 * no log line, so each open stream asks Redis: one MULTI (the last line and the list's length)
 * per second when nothing is new, one LRANGE more when something is.
 */
export const LOG_POLL_MS = 1_000;

/** Lines read per round trip. */
const BATCH = 500;

/**
 * `GET /runs/{id}/logs/stream`: the run's log lines from `from` on as `line` events (`id:` = the
 * line's number, so an EventSource resumes after the last line it saw), new ones as the handler
 * writes them, then `end` once the run has settled and its last lines are sent. The worker stores
 * an attempt's lines before it settles the run, so the lines read after the settled status are all.
 * The run's settling is learned from the queue's BullMQ events (and every keep-alive tick).
 */
@Injectable()
export class RunLogStreams {
  private readonly logger = new Logger('RunLogs');

  constructor(
    private readonly runs: RunStore,
    private readonly hub: QueueEventHub,
    private readonly streams: SseStreams,
  ) {}

  /** @throws RunNotFoundError before anything is written, so the caller gets a 404 problem. */
  async open(id: string, from: number, req: Request, res: Response): Promise<void> {
    const first = await this.runs.get(id);
    if (!first) throw new RunNotFoundError(id);
    const queue = first.queue;
    let next = from;
    let settled = isSettled(first);
    let statusDue = false;
    if (!settled) await this.hub.watch(queue);

    const sendNew = async (): Promise<void> => {
      for (;;) {
        const page = await this.runs.logs(id, { from: next, limit: BATCH, queue });
        if (!page || !stream.isOpen) return;
        for (const l of page.lines) stream.send({ event: 'line', id: l.seq!, data: toApiLogLine(l) });
        next = page.next;
        if (page.lines.length < BATCH) return;
      }
    };
    const work = async (): Promise<void> => {
      if (statusDue) {
        statusDue = false;
        const view = await this.runs.get(id, queue);
        settled ||= !view || isSettled(view);
      }
      // Read after the status: a settled run's lines are all stored by now.
      const ending = settled;
      await sendNew();
      if (ending && stream.isOpen) {
        stream.send({ event: 'end', data: { id, next } });
        stream.end();
      }
    };
    // Serialised: a tick during a read schedules exactly one more.
    let busy = false;
    let again = false;
    const tick = (): void => {
      if (!stream.isOpen) return;
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      work()
        .catch((err: unknown) => this.logger.debug(`run ${id}: ${(err as Error).message}`))
        .finally(() => {
          busy = false;
          if (again) {
            again = false;
            tick();
          }
        });
    };
    const checkStatus = () => {
      statusDue = true;
      tick();
    };
    const stream = this.streams.start(req, res, { retryMs: SSE_RETRY_MS, onTick: checkStatus });
    if (!settled) {
      stream.onClose(this.hub.onJob(queue, id, checkStatus));
      const poll = setInterval(tick, LOG_POLL_MS);
      poll.unref();
      stream.onClose(() => clearInterval(poll));
    }
    // Listening before this read: a change after it is either in the read or a nudge.
    checkStatus();
  }
}
