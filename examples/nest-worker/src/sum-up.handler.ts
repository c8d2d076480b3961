import { JobHandler, type JobContext, type JobHandlerInterface } from '@drover/worker';
import { z } from 'zod';

const payload = z.strictObject({ counts: z.array(z.number().int().min(1).max(10_000)).min(1).max(20) });

/**
 * A run that fans out and continues: it adds an `example.tally` child per count (each on any worker),
 * waits for them, and, started again once they all finished, adds up what they made. The checkpoint
 * tells the second start from the first.
 */
@JobHandler('example.sum-up', { payload })
export class SumUpHandler implements JobHandlerInterface<
  z.output<typeof payload>,
  { total: number; children: number },
  { waiting: true }
> {
  async handle({ counts }: z.output<typeof payload>, ctx: JobContext<{ waiting: true }>) {
    if (!ctx.lastCheckpoint) {
      await ctx.addChildren(
        counts.map((count) => ({ jobType: 'example.tally', queue: ctx.run.queue, payload: { count } })),
      );
      await ctx.checkpoint({ waiting: true });
      await ctx.waitForChildren(); // ends this attempt; the handler starts again once they finished
    }
    const children = await ctx.children();
    const failed = children.filter((c) => c.status !== 'succeeded');
    if (failed.length) throw new Error(`${failed.length} tallies did not succeed`);
    const total = children.reduce((sum, c) => sum + (c.result as { total: number }).total, 0);
    return { total, children: children.length };
  }
}
