/** Bookkeeping of a routine's condition checks / launches. Times are epoch ms. */
export interface LauncherState {
  consecutiveFailures: number;
  /** While backing off after a failure: no launch attempt before this time. */
  nextAttemptAt?: number;
  /** Set once `maxLaunchFailures` consecutive failures disabled the routine; cleared only by {@link resetLauncher}. */
  disabledReason?: string;
  /** When the launcher disabled the routine. */
  disabledAt?: number;
  /** The newest failure's error while failures run (what an operator reads before it disables). */
  lastLaunchError?: string;
}

/** The three outcomes of a launch: the run was enqueued; the condition said no (healthy); the launch failed. */
export type LaunchOutcome = { kind: 'enqueued' } | { kind: 'skipped' } | { kind: 'failed'; error: string };

export interface LauncherPolicy {
  /** Disable after this many consecutive failures. Default 5. */
  maxLaunchFailures?: number;
  /** Backoff after the first failure, doubled per further failure. Default 1000 ms. */
  baseDelayMs?: number;
  /** Cap on the backoff. Default 300000 ms (5 min). */
  maxDelayMs?: number;
}

/** A launcher that has never failed. */
export function initialLauncherState(): LauncherState {
  return { consecutiveFailures: 0 };
}

/** Operator re-enable: forget failures, backoff and the disabled reason. */
export function resetLauncher(): LauncherState {
  return initialLauncherState();
}

/**
 * Fold one launch outcome at `now` (epoch ms) into the state. `enqueued` and `skipped` are healthy: they reset
 * the failure count and any backoff. `failed` increments it and backs off `baseDelayMs * 2^(failures-1)`
 * (capped at `maxDelayMs`); at `maxLaunchFailures` consecutive failures the routine is disabled.
 * A disabled state is returned unchanged. Pure; never mutates `state`.
 */
export function recordLaunchOutcome(
  state: LauncherState,
  outcome: LaunchOutcome,
  now: number,
  policy: LauncherPolicy = {},
): LauncherState {
  if (state.disabledReason !== undefined) return state;
  if (outcome.kind !== 'failed') return initialLauncherState();
  const failures = state.consecutiveFailures + 1;
  const max = policy.maxLaunchFailures ?? 5;
  if (failures >= max) {
    return {
      consecutiveFailures: failures,
      disabledReason: `launch failed ${failures} times in a row (maxLaunchFailures ${max}); last error: ${outcome.error}`,
      disabledAt: now,
      lastLaunchError: outcome.error,
    };
  }
  const base = policy.baseDelayMs ?? 1000;
  const delay = Math.min(base * 2 ** (failures - 1), policy.maxDelayMs ?? 300_000);
  return { consecutiveFailures: failures, nextAttemptAt: now + delay, lastLaunchError: outcome.error };
}

/**
 * A launcher's health as operators read it at `now`: the backoff end only while it lies ahead, the
 * newest error, and the disable reason with its time. Pure.
 */
export function launcherHealth(
  state: LauncherState,
  now: number,
): {
  consecutiveFailures: number;
  backoffUntil?: number;
  lastLaunchError?: string;
  disabledReason?: string;
  disabledAt?: number;
} {
  const backingOff = state.disabledReason === undefined && (state.nextAttemptAt ?? -Infinity) > now;
  return {
    consecutiveFailures: state.consecutiveFailures,
    ...(backingOff && { backoffUntil: state.nextAttemptAt }),
    ...(state.lastLaunchError !== undefined && { lastLaunchError: state.lastLaunchError }),
    ...(state.disabledReason !== undefined && { disabledReason: state.disabledReason }),
    ...(state.disabledAt !== undefined && { disabledAt: state.disabledAt }),
  };
}

/** Why a launch may not be attempted at `now`: disabled, or backing off until `nextAttemptAt`. */
export function launchBlocker(
  state: LauncherState | undefined,
  now: number,
): { reason: 'disabled'; detail: string } | { reason: 'backing-off'; until: number } | undefined {
  if (!state) return undefined;
  if (state.disabledReason !== undefined) return { reason: 'disabled', detail: state.disabledReason };
  if (state.nextAttemptAt !== undefined && state.nextAttemptAt > now) {
    return { reason: 'backing-off', until: state.nextAttemptAt };
  }
  return undefined;
}
