import { JobHandler, type JobContext, type JobHandlerInterface } from '@drover/worker';
import { z } from 'zod';

const payload = z.strictObject({ count: z.number().int().min(1).max(10_000), failAt: z.number().int().optional() });

/** What the handler checkpoints: the next number to add and the sum so far. */
interface Tally {
  next: number;
  total: number;
}

/**
 * A long job that resumes where it stopped: it adds up 1..count, recording a checkpoint every 10
 * numbers. Its first attempt fails at `failAt` (a dependency gone for a moment); the retry starts from
 * the last checkpoint (`ctx.lastCheckpoint`), not from 1. A worker killed mid-way, or drained past its
 * grace period, resumes the same way.
 */
@JobHandler('example.tally', { payload })
export class TallyHandler implements JobHandlerInterface<
  z.output<typeof payload>,
  { total: number; resumedFrom: number },
  Tally
> {
  async handle({ count, failAt }: z.output<typeof payload>, ctx: JobContext<Tally>) {
    const resumedFrom = ctx.lastCheckpoint?.next ?? 1;
    let total = ctx.lastCheckpoint?.total ?? 0;
    for (let n = resumedFrom; n <= count; n++) {
      if (n === failAt && ctx.run.attempt === 1) throw new Error(`stopped at ${n}`);
      total += n;
      if (n % 10 === 0) await ctx.checkpoint({ next: n + 1, total });
    }
    return { total, resumedFrom };
  }
}
