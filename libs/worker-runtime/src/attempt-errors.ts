import { UnrecoverableError, type Job } from 'bullmq';
import type { FailureDecision } from '@drover/core';
import { encodeAttempt, type AttemptRecord } from '@drover/store';

/** A failed attempt's error, carrying core's retry-or-park decision to the backoff strategy and metrics. */
export type AttemptError = Error & { decision?: FailureDecision };

/**
 * The error a failed attempt is thrown to BullMQ with. A park decision is an UnrecoverableError,
 * which makes BullMQ skip its own retry check and move the job to `failed` (the parked area).
 * BullMQ appends `err.stack` to the job's stacktrace in the same script that moves the job on, so
 * the stack is the attempt record: the attempt log is written atomically with the transition and
 * without an extra round trip.
 */
export function attemptError(record: AttemptRecord, decision: FailureDecision): AttemptError {
  const err: AttemptError =
    decision.action === 'park' ? new UnrecoverableError(record.message) : new Error(record.message);
  err.stack = encodeAttempt(record);
  err.decision = decision;
  return err;
}

/**
 * The attempts before `attempt` that left no trace but BullMQ's attemptsStarted: attempt n starts
 * with n − 1 − attemptsMade of them lost to an expired lease (a graceful hand-back is subtracted
 * from `attempt` already). Oldest first; empty when none was lost.
 */
export function lostAttempts(job: Pick<Job, 'attemptsMade'>, attempt: number, now: number): AttemptRecord[] {
  const lost = attempt - 1 - job.attemptsMade;
  return Array.from({ length: Math.max(0, lost) }, (_, i): AttemptRecord => ({
    attempt: attempt - lost + i,
    kind: 'lease-expired',
    message: 'the lease expired: the worker running this attempt died or stalled',
    failedAt: now,
  }));
}
