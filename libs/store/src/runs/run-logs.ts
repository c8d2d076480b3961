import type { Queue } from 'bullmq';
import { parseRunLogLine, type RunLogLine } from '@drover/core';

/** Most lines one read returns. */
export const RUN_LOG_PAGE_MAX = 1_000;

/** Lines of a run's log from one number on (see RunStore.logs). */
export interface RunLogPage {
  /** In order; every line has its `seq`. */
  lines: RunLogLine[];
  /** The `from` that asks for the lines after these: the next line's number. */
  next: number;
  /** How many of the run's first lines are no longer kept (the queue's `retention.logLines`). */
  dropped: number;
}

/**
 * Reads a run's log lines numbered `from` and after (at most `limit`) from BullMQ's job log list.
 * The list keeps the newest lines, so its indices move as old lines go; the lines' own numbers do
 * not: the last line's number and the list's length (one round trip) say where `from` is now.
 * Lines written by a plain `job.log` carry no number and are numbered by their place.
 */
export async function readRunLogs(
  queue: Pick<Queue, 'getJobLogs'>,
  id: string,
  from = 1,
  limit = RUN_LOG_PAGE_MAX,
): Promise<RunLogPage> {
  const tail = await queue.getJobLogs(id, -1, -1);
  const count = tail.count;
  if (count === 0 || tail.logs[0] === undefined) return { lines: [], next: Math.max(from, 1), dropped: 0 };
  const lastSeq = parseRunLogLine(tail.logs[0]).seq ?? count;
  const firstSeq = lastSeq - count + 1;
  const dropped = firstSeq - 1;
  const start = Math.max(from, firstSeq);
  if (start > lastSeq) return { lines: [], next: Math.max(from, lastSeq + 1), dropped };
  const index = start - firstSeq;
  const { logs } = await queue.getJobLogs(id, index, index + Math.min(limit, RUN_LOG_PAGE_MAX) - 1);
  // A line written between the two reads may have pushed older ones out: never answer one before `from`.
  const lines = logs
    .map((raw, i) => {
      const line = parseRunLogLine(raw);
      return line.seq === undefined ? { seq: start + i, ...line } : line;
    })
    .filter((l) => l.seq! >= from);
  return { lines, next: lines.length ? lines.at(-1)!.seq! + 1 : start, dropped };
}
