import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import {
  defineJob,
  JobHandler,
  type JobContext,
  type JobHandlerInterface,
  type PayloadOf,
} from '@drover/worker-runtime';

export const sleepJob = defineJob('sleep', {
  payload: z.strictObject({ ms: z.number().int().min(0).max(86_400_000) }),
  result: z.object({ sleptMs: z.number() }),
});

/** Waits `ms` milliseconds; stops at once when its signal aborts (timeout, cancel, shutdown). */
@JobHandler(sleepJob)
export class SleepHandler implements JobHandlerInterface<PayloadOf<typeof sleepJob>, { sleptMs: number }> {
  async handle({ ms }: PayloadOf<typeof sleepJob>, ctx: JobContext): Promise<{ sleptMs: number }> {
    await sleep(ms, undefined, { signal: ctx.signal });
    return { sleptMs: ms };
  }
}
