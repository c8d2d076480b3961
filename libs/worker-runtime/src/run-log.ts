import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { DEFAULT_RETENTION, formatRunLogLine, parseRunLogLine } from '@drover/core';
import type { Clock } from '@drover/redis';

/** Where a queue's runs write their log lines (one per consumer; see RunLog). */
export interface RunLogSink {
  /** The run's BullMQ queue: lines go to the job's own `<id>:logs` list, removed with the job. */
  queue: Pick<Queue, 'addJobLog' | 'getJobLogs'>;
  clock: Clock;
  /** The queue's `retention.logLines`: BullMQ's `keepLogs`, the newest lines kept per run. */
  keepLines: number;
  /** The worker's own log, where a line that could not be written is reported. */
  log: Logger;
}

interface Waiting {
  at: number;
  message: string;
  fields?: Record<string, unknown>;
}

/**
 * One attempt's writer of its run's log. `write` returns at once: the line is sent to Redis
 * without waiting for an answer (commands on one connection keep their order), and a failure is
 * reported once per attempt in the worker's log, never thrown into the handler.
 *
 * Lines are numbered across the run's attempts. A first attempt starts at 1 without asking Redis;
 * a later one reads the number of the last line kept first, holding (at most `keepLines`) lines
 * written meanwhile.
 */
export class RunLog {
  private seq = 0;
  private waiting?: Waiting[];
  private reported = false;
  /** Settles once every line written so far is in Redis (or failed): commands on one connection answer in order. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly sink: RunLogSink,
    private readonly runId: string,
    continues: boolean,
  ) {
    if (continues) this.continueNumbering();
  }

  write(message: string, fields?: Record<string, unknown>): void {
    const at = this.sink.clock.now();
    const text = typeof message === 'string' ? message : String(message);
    if (!this.waiting) {
      void this.send(++this.seq, at, text, fields);
      return;
    }
    if (this.waiting.length < this.sink.keepLines) this.waiting.push({ at, message: text, fields });
  }

  /**
   * Settles once the lines written so far are stored (or failed). The worker awaits it before it
   * settles the attempt, so a reader that sees the run finished also sees all of its lines.
   */
  written(): Promise<unknown> {
    return this.last;
  }

  private send(seq: number, at: number, message: string, fields?: Record<string, unknown>): Promise<unknown> {
    const raw = formatRunLogLine(seq, at, message, fields);
    const sent = this.sink.queue
      .addJobLog(this.runId, raw, this.sink.keepLines)
      .catch((err: unknown) => this.report(err));
    this.last = sent;
    return sent;
  }

  private continueNumbering(): void {
    this.waiting = [];
    this.last = this.sink.queue
      .getJobLogs(this.runId, -1, -1)
      .then(
        ({ logs, count }) => (this.seq = (logs[0] === undefined ? undefined : parseRunLogLine(logs[0]).seq) ?? count),
        (err: unknown) => this.report(err),
      )
      .then(() => {
        const held = this.waiting ?? [];
        this.waiting = undefined;
        let sent: Promise<unknown> | undefined;
        for (const w of held) sent = this.send(++this.seq, w.at, w.message, w.fields);
        return sent;
      });
  }

  private report(err: unknown): void {
    if (this.reported) return;
    this.reported = true;
    this.sink.log.warn({ runId: this.runId, err: (err as Error).message }, 'run log line not written');
  }
}

/**
 * The sink of a queue's runs: its BullMQ queue and its policy's `retention.logLines` (the default
 * for a policy stored before the field existed: stored records are read as written).
 */
export function runLogSink(
  policy: { name: string; retention: { logLines?: number } },
  deps: { bull: { get(queue: string): RunLogSink['queue'] }; clock: Clock; log: Logger },
): RunLogSink {
  const keepLines = policy.retention.logLines ?? DEFAULT_RETENTION.logLines;
  return { queue: deps.bull.get(policy.name), clock: deps.clock, keepLines, log: deps.log };
}
