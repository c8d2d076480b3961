import { FINAL_RUN_STATUSES, type RunStatus } from './run-status';
import type { Run } from './run.schema';
import type { RunEvent, TransitionResult } from './run-event';

/** The status each event leads to. */
const TARGET: Record<RunEvent['type'], RunStatus> = {
  enqueue: 'queued',
  start: 'running',
  progress: 'running',
  succeed: 'succeeded',
  retry: 'queued',
  park: 'parked',
  fail: 'failed',
  cancel: 'canceled',
  skip: 'skipped',
  replay: 'queued',
};

/** The statuses each event may be applied in. */
const FROM: Record<RunEvent['type'], readonly RunStatus[]> = {
  enqueue: ['scheduled'],
  start: ['scheduled', 'queued'],
  progress: ['running'],
  succeed: ['running'],
  retry: ['running'],
  park: ['running', 'queued'],
  fail: ['running', 'queued', 'parked'],
  cancel: ['scheduled', 'awaiting-approval', 'queued', 'running'],
  skip: ['scheduled'],
  replay: ['parked', 'failed'],
};

function next(run: Run, e: RunEvent): Run {
  const base: Run = { ...run, status: TARGET[e.type], updatedAt: Math.max(run.updatedAt, e.at) };
  switch (e.type) {
    case 'enqueue':
      return { ...base, queuedAt: e.at };
    case 'start': {
      const { nextAttemptAt: _n, ...rest } = base;
      return { ...rest, attempt: e.attempt, startedAt: e.at, ...(e.worker !== undefined && { worker: e.worker }) };
    }
    case 'progress':
      return { ...base, progress: e.progress };
    case 'succeed':
      return { ...base, finishedAt: e.at, ...(e.result !== undefined && { result: e.result }) };
    case 'retry':
      return { ...base, error: e.error, nextAttemptAt: e.nextAttemptAt, queuedAt: e.at };
    case 'park':
      return { ...base, reason: e.reason, finishedAt: e.at, ...(e.error && { error: e.error }) };
    case 'fail':
      return { ...base, error: e.error, finishedAt: e.at };
    case 'cancel':
      return { ...base, finishedAt: e.at, ...(e.reason !== undefined && { reason: e.reason }) };
    case 'skip':
      return { ...base, reason: e.reason, finishedAt: e.at };
    case 'replay': {
      const { finishedAt: _f, nextAttemptAt: _n, reason: _r, ...rest } = base;
      return { ...rest, attempt: 0, source: 'replay', queuedAt: e.at };
    }
  }
}

/** Does `run` already reflect `e` (so applying it again must change nothing)? */
function alreadyApplied(run: Run, e: RunEvent): boolean {
  if (run.status !== TARGET[e.type] || e.type === 'progress' || e.type === 'replay') return false;
  return !('attempt' in e) || e.attempt === undefined || e.attempt === run.attempt;
}

/**
 * Apply `event` to `run` and return the new run, or the same run with the reason it was ignored.
 * Idempotent and order-tolerant: a duplicate event, an event for an older attempt (`attempt < run.attempt`),
 * an attempt event while the run is not in that attempt, or any event on a final run is ignored — never an
 * exception, never a corrupted run. `start` must name attempt `run.attempt + 1`. Never mutates `run`.
 */
export function applyTransition(run: Run, event: RunEvent): TransitionResult {
  if (alreadyApplied(run, event)) return { run, changed: false, ignored: 'duplicate' };
  if (FINAL_RUN_STATUSES.includes(run.status) && event.type !== 'replay')
    return { run, changed: false, ignored: 'final' };
  if (!FROM[event.type].includes(run.status)) return { run, changed: false, ignored: 'stale' };
  if ('attempt' in event && event.attempt !== undefined) {
    const expected = event.type === 'start' ? run.attempt + 1 : run.attempt;
    if (event.attempt !== expected) {
      return { run, changed: false, ignored: event.attempt < expected ? 'stale' : 'out-of-order' };
    }
  }
  return { run: next(run, event), changed: true };
}
