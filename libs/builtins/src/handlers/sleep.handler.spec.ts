import { performance } from 'node:perf_hooks';
import type { JobContext } from '@drover/worker-runtime';
import { progressStepMs, SleepHandler, sleepWithProgress, type SleepProgress } from './sleep.handler';

describe('progressStepMs', () => {
  it('reports every 10 %, at least a second and at most a minute apart', () => {
    expect(progressStepMs(0)).toBe(1_000);
    expect(progressStepMs(4_000)).toBe(1_000);
    expect(progressStepMs(25_000)).toBe(2_500);
    expect(progressStepMs(86_400_000)).toBe(60_000);
  });
});

describe('sleepWithProgress', () => {
  it('reports at each step boundary before the end, then ends after the whole sleep', async () => {
    const seen: SleepProgress[] = [];
    const start = performance.now();
    await sleepWithProgress(130, new AbortController().signal, async (p) => void seen.push(p), 40);
    expect(performance.now() - start).toBeGreaterThanOrEqual(125);
    expect(seen).toEqual([
      { sleptMs: 40, ms: 130, percent: 30 },
      { sleptMs: 80, ms: 130, percent: 61 },
      { sleptMs: 120, ms: 130, percent: 92 },
    ]);
  });

  it('stops at once when the signal aborts (an AbortError caused by the reason), reporting nothing more', async () => {
    const abort = new AbortController();
    const seen: SleepProgress[] = [];
    const reason = new Error('canceled');
    const sleeping = sleepWithProgress(60_000, abort.signal, async (p) => void seen.push(p), 20);
    const aborted = expect(sleeping).rejects.toMatchObject({ name: 'AbortError', cause: reason });
    // Abort after the first report, in the middle of the second step.
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => seen.length > 0 && (clearInterval(poll), resolve()), 1);
    });
    const at = performance.now();
    abort.abort(reason);
    await aborted;
    expect(performance.now() - at).toBeLessThan(15);
    expect(seen).toEqual([{ sleptMs: 20, ms: 60_000, percent: 0 }]);
  });
});

describe('SleepHandler', () => {
  it('records progress on the run and still succeeds when recording fails', async () => {
    const progress = jest.fn<Promise<void>, [number | object]>().mockRejectedValue(new Error('redis down'));
    const debug = jest.fn();
    const lines: unknown[][] = [];
    const log = Object.assign((...line: unknown[]) => lines.push(line), { debug });
    const ctx = { signal: new AbortController().signal, progress, log } as unknown as JobContext;
    await expect(new SleepHandler().handle({ ms: 1_100 }, ctx)).resolves.toEqual({ sleptMs: 1_100 });
    expect(progress.mock.calls).toEqual([[{ sleptMs: 1_000, ms: 1_100, percent: 90 }]]);
    expect(debug).toHaveBeenCalledTimes(1);
    // A few lines of the run's log: the start, each step, the end.
    expect(lines).toEqual([['sleeping 1100 ms'], ['slept 1000 of 1100 ms', { percent: 90 }], ['slept 1100 ms']]);
  });

  it('does not report a sleep shorter than a step', async () => {
    const progress = jest.fn<Promise<void>, [number | object]>().mockResolvedValue(undefined);
    const ctx = { signal: new AbortController().signal, progress, log: () => undefined } as unknown as JobContext;
    await expect(new SleepHandler().handle({ ms: 0 }, ctx)).resolves.toEqual({ sleptMs: 0 });
    expect(progress).not.toHaveBeenCalled();
  });
});
