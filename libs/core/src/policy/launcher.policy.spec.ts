import { countedStatus } from '../model/routine-status';
import {
  initialLauncherState,
  launcherHealth,
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
      { consecutiveFailures: 1, nextAttemptAt: NOW + 1000, lastLaunchError: 'db down' },
    ],
    [
      'third failure backs off 4 s',
      { consecutiveFailures: 2, nextAttemptAt: NOW },
      failed,
      { consecutiveFailures: 3, nextAttemptAt: NOW + 4000, lastLaunchError: 'db down' },
    ],
    [
      'enqueued resets, the last error too',
      { consecutiveFailures: 3, nextAttemptAt: NOW, lastLaunchError: 'db down' },
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
        disabledAt: NOW,
        lastLaunchError: 'db down',
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
    expect(capped).toEqual({ consecutiveFailures: 21, nextAttemptAt: NOW + 5000, lastLaunchError: 'db down' });
  });

  it('stays disabled until reset, whatever happens', () => {
    const disabled: LauncherState = { consecutiveFailures: 5, disabledReason: 'x' };
    expect(recordLaunchOutcome(disabled, { kind: 'enqueued' }, NOW)).toBe(disabled);
    expect(resetLauncher()).toEqual(initialLauncherState());
    expect(initialLauncherState()).toEqual({ consecutiveFailures: 0 });
  });

  it("reports a launcher's health: the backoff end only while ahead, the error, the disable and its time", () => {
    expect(launcherHealth(initialLauncherState(), NOW)).toEqual({ consecutiveFailures: 0 });
    const backingOff = recordLaunchOutcome({ consecutiveFailures: 1 }, failed, NOW);
    expect(launcherHealth(backingOff, NOW)).toEqual({
      consecutiveFailures: 2,
      backoffUntil: NOW + 2000,
      lastLaunchError: 'db down',
    });
    expect(launcherHealth(backingOff, NOW + 2000)).toEqual({ consecutiveFailures: 2, lastLaunchError: 'db down' });
    const disabled = recordLaunchOutcome({ consecutiveFailures: 4 }, failed, NOW);
    expect(launcherHealth(disabled, NOW + 1)).toEqual({
      consecutiveFailures: 5,
      lastLaunchError: 'db down',
      disabledReason: disabled.disabledReason,
      disabledAt: NOW,
    });
  });

  it('counts an active routine its launcher disabled as disabled, and only as that', () => {
    expect(countedStatus('active', undefined)).toBe('active');
    expect(countedStatus('active', 'launch failed 5 times')).toBe('disabled');
    expect(countedStatus('paused', 'launch failed 5 times')).toBe('paused');
    expect(countedStatus('archived', 'launch failed 5 times')).toBe('archived');
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
