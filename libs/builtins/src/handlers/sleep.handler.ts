import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { sleepJob } from '@drover/core';
import { JobHandler, type JobContext, type JobHandlerInterface, type PayloadOf } from '@drover/worker-runtime';

/** What the sleep handler reports while it waits (the run's `progress`). */
export interface SleepProgress {
  sleptMs: number;
  ms: number;
  percent: number;
}

/**
 * How often a sleep of `ms` reports progress: every 10 %, but at least a second apart (a short
 * sleep need not write to Redis ten times) and at most a minute (a day-long one still shows life).
 */
export function progressStepMs(ms: number): number {
  return Math.min(60_000, Math.max(1_000, Math.ceil(ms / 10)));
}

/**
 * Waits `ms` and calls `report` at each step boundary before the end. Steps are measured on the
 * monotonic clock from the start, so the time a report takes does not stretch the sleep; the
 * signal stops it at once (rejects with the signal's reason). A failed report is only logged by
 * the caller: progress is a courtesy, the sleep is the job.
 */
export async function sleepWithProgress(
  ms: number,
  signal: AbortSignal,
  report: (p: SleepProgress) => Promise<void>,
  stepMs = progressStepMs(ms),
): Promise<void> {
  const start = performance.now();
  for (let next = stepMs; next < ms; next += stepMs) {
    await sleep(Math.max(0, next - (performance.now() - start)), undefined, { signal });
    await report({ sleptMs: next, ms, percent: Math.floor((next / ms) * 100) });
  }
  await sleep(Math.max(0, ms - (performance.now() - start)), undefined, { signal });
}

/** Waits `ms` milliseconds reporting progress; stops at once when its signal aborts (timeout, cancel, shutdown). */
@JobHandler(sleepJob)
export class SleepHandler implements JobHandlerInterface<PayloadOf<typeof sleepJob>, { sleptMs: number }> {
  async handle({ ms }: PayloadOf<typeof sleepJob>, ctx: JobContext): Promise<{ sleptMs: number }> {
    // A few lines of the run's log, so a quick start shows one (drover runs logs <id>).
    ctx.log(`sleeping ${ms} ms`);
    await sleepWithProgress(ms, ctx.signal, (p) => {
      ctx.log(`slept ${p.sleptMs} of ${ms} ms`, { percent: p.percent });
      return ctx.progress(p).catch((err: unknown) => ctx.log.debug({ err }, 'could not record progress'));
    });
    ctx.log(`slept ${ms} ms`);
    return { sleptMs: ms };
  }
}
