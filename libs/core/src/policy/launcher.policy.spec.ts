import {
  initialLauncherState,
  launchBlocker,
  recordLaunchOutcome,
  resetLauncher,
  type LauncherState,
} from './launcher.policy';

const NOW = 1_749_996_000_000;
const failed = { kind: 'failed' as const, error: 'db down' };

describe('launcher bookkeeping', () => {
  it.each<[string, LauncherState, Parameters<typeof recordLaunchOutcome>[1], LauncherState]>([
    [
      'first failure backs off 1 s',
      { consecutiveFailures: 0 },
      failed,
      { consecutiveFailures: 1, nextAttemptAt: NOW + 1000 },
    ],
    [
      'third failure backs off 4 s',
      { consecutiveFailures: 2, nextAttemptAt: NOW },
      failed,
      { consecutiveFailures: 3, nextAttemptAt: NOW + 4000 },
    ],
    [
      'enqueued resets',
      { consecutiveFailures: 3, nextAttemptAt: NOW },
      { kind: 'enqueued' },
      { consecutiveFailures: 0 },
    ],
    [
      'a skip is healthy and resets',
      { consecutiveFailures: 4, nextAttemptAt: NOW },
      { kind: 'skipped' },
      { consecutiveFailures: 0 },
    ],
    [
      'the fifth consecutive failure disables',
      { consecutiveFailures: 4, nextAttemptAt: NOW },
      failed,
      {
        consecutiveFailures: 5,
        disabledReason: 'launch failed 5 times in a row (maxLaunchFailures 5); last error: db down',
      },
    ],
  ])('%s', (_name, state, outcome, expected) => {
    expect(recordLaunchOutcome(state, outcome, NOW)).toEqual(expected);
  });

  it('honours maxLaunchFailures and the backoff cap', () => {
    expect(
      recordLaunchOutcome({ consecutiveFailures: 0 }, failed, NOW, { maxLaunchFailures: 1 }).disabledReason,
    ).toMatch(/1 times/);
    const capped = recordLaunchOutcome({ consecutiveFailures: 20 }, failed, NOW, {
      maxLaunchFailures: 100,
      baseDelayMs: 10,
      maxDelayMs: 5000,
    });
    expect(capped).toEqual({ consecutiveFailures: 21, nextAttemptAt: NOW + 5000 });
  });

  it('stays disabled until reset, whatever happens', () => {
    const disabled: LauncherState = { consecutiveFailures: 5, disabledReason: 'x' };
    expect(recordLaunchOutcome(disabled, { kind: 'enqueued' }, NOW)).toBe(disabled);
    expect(resetLauncher()).toEqual(initialLauncherState());
    expect(initialLauncherState()).toEqual({ consecutiveFailures: 0 });
  });

  it('reports what blocks a launch', () => {
    expect(launchBlocker(undefined, NOW)).toBeUndefined();
    expect(launchBlocker({ consecutiveFailures: 0 }, NOW)).toBeUndefined();
    expect(launchBlocker({ consecutiveFailures: 1, nextAttemptAt: NOW }, NOW)).toBeUndefined();
    expect(launchBlocker({ consecutiveFailures: 1, nextAttemptAt: NOW + 1 }, NOW)).toEqual({
      reason: 'backing-off',
      until: NOW + 1,
    });
    expect(launchBlocker({ consecutiveFailures: 5, disabledReason: 'x' }, NOW)).toEqual({
      reason: 'disabled',
      detail: 'x',
    });
  });
});
