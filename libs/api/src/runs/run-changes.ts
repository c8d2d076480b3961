import { isDeepStrictEqual } from 'node:util';
import { SETTLED_RUN_STATUSES } from '@drover/core';
import type { RunView } from '@drover/store';
import { toApiRun } from './run-schema';

/** One event of a run's stream (`GET /runs/{id}/events`). */
export type RunStreamEvent =
  | { event: 'status'; data: ReturnType<typeof toApiRun> }
  | { event: 'attempt'; data: { id: string; attempt: number; maxAttempts: number; status: RunView['status'] } }
  | { event: 'progress'; data: { id: string; progress: unknown } };

export const isSettled = (v: Pick<RunView, 'status'>): boolean => SETTLED_RUN_STATUSES.includes(v.status);

/**
 * What a stream tells its client when a re-read shows `next` after it last showed `prev`
 * (nothing shown yet: the current state as a `status` event). In this order: `status` when the
 * status changed (the whole run), `attempt` when a new attempt began, `progress` when the
 * handler reported another progress value. Pure.
 */
export function runChanges(prev: RunView | undefined, next: RunView): RunStreamEvent[] {
  if (!prev) return [{ event: 'status', data: toApiRun(next) }];
  const out: RunStreamEvent[] = [];
  if (next.status !== prev.status) out.push({ event: 'status', data: toApiRun(next) });
  if (next.attempt > prev.attempt) {
    out.push({
      event: 'attempt',
      data: { id: next.id, attempt: next.attempt, maxAttempts: next.maxAttempts, status: next.status },
    });
  }
  if (next.progress !== undefined && !isDeepStrictEqual(next.progress, prev.progress)) {
    out.push({ event: 'progress', data: { id: next.id, progress: next.progress } });
  }
  return out;
}
