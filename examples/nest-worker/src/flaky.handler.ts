import { JobHandler, type JobContext, type JobHandlerInterface } from '@drover/worker';
import { z } from 'zod';

const payload = z.strictObject({ key: z.string().min(1) });

/**
 * A call that fails until its third attempt (a service that needs a moment to come back). With the
 * queue's 3 attempts it succeeds on the third; a run given fewer attempts is parked for an operator.
 */
@JobHandler('example.flaky', { payload })
export class FlakyHandler implements JobHandlerInterface<z.output<typeof payload>, { key: string; attempt: number }> {
  async handle({ key }: z.output<typeof payload>, ctx: JobContext): Promise<{ key: string; attempt: number }> {
    if (ctx.run.attempt < 3) throw new Error(`${key}: not yet (attempt ${ctx.run.attempt})`);
    return { key, attempt: ctx.run.attempt };
  }
}
