import type { Backoff } from '../model/queue.schema';
import type { Run } from '../run/run.schema';

/**
 * Retry delay in ms after failed attempt `attempt` (1-based), without jitter:
 * `fixed` → `delayMs`; `exponential` → `delayMs * 2^(attempt-1)`; both capped at `maxDelayMs`.
 * Invariants: in [0, maxDelayMs] (given delayMs <= maxDelayMs); non-decreasing in `attempt`. Attempts < 1 count as 1.
 */
export function retryDelayMsWithoutJitter(backoff: Backoff, attempt: number): number {
  if (backoff.delayMs <= 0) return 0;
  const n = Math.max(1, Math.floor(attempt));
  const raw = backoff.type === 'fixed' ? backoff.delayMs : backoff.delayMs * 2 ** (n - 1);
  return Math.min(raw, backoff.maxDelayMs);
}

/**
 * Retry delay in ms with jitter: the deterministic delay reduced by a random share of at most `jitter` of it,
 * i.e. in `[d * (1 - jitter), d]` where `d = retryDelayMsWithoutJitter(...)`. Never above the cap; equals `d`
 * when `jitter` is 0. `random` returns values in [0, 1). Integer ms.
 */
export function retryDelayMs(backoff: Backoff, attempt: number, random: () => number): number {
  const d = retryDelayMsWithoutJitter(backoff, attempt);
  const jitter = Math.min(Math.max(backoff.jitter, 0), 1);
  if (jitter === 0 || d === 0) return d;
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.max(0, Math.ceil(d - d * jitter * r));
}

/** What went wrong with an attempt. An expired lease (the worker died) counts as one failed attempt. */
export type AttemptFailure =
  | { kind: 'error'; message: string; stack?: string; permanent?: boolean }
  | { kind: 'timeout'; message?: string }
  | { kind: 'lease-expired' };

export type ParkReason = 'attempts-exhausted' | 'permanent-error' | 'lease-expired' | 'child-failed';

export type FailureDecision =
  { action: 'retry'; at: number; delayMs: number; nextAttempt: number } | { action: 'park'; reason: ParkReason };

/**
 * After attempt `run.attempt` (1-based) failed at `now` (epoch ms): retry at `now + delay` or park.
 * Parks when the error is permanent, or when `run.attempt >= maxAttempts` (reason `lease-expired` if the last
 * attempt was lost to an expired lease, else `attempts-exhausted`). `maxAttempts` defaults to `run.maxAttempts`.
 * Deterministic unless `backoff.jitter > 0` (then `random`, default `() => 0` = no reduction, is used).
 */
export function afterFailure(
  run: Pick<Run, 'attempt' | 'maxAttempts'>,
  failure: AttemptFailure,
  policy: { backoff: Backoff; maxAttempts?: number },
  now: number,
  random: () => number = () => 0,
): FailureDecision {
  if (failure.kind === 'error' && failure.permanent) return { action: 'park', reason: 'permanent-error' };
  const attempt = Math.max(1, run.attempt);
  if (attempt >= (policy.maxAttempts ?? run.maxAttempts)) {
    return { action: 'park', reason: failure.kind === 'lease-expired' ? 'lease-expired' : 'attempts-exhausted' };
  }
  const delayMs = retryDelayMs(policy.backoff, attempt, random);
  return { action: 'retry', at: now + delayMs, delayMs, nextAttempt: attempt + 1 };
}
