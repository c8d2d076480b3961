import type { Command } from 'commander';
import { ok } from '@drover/api-client';
import { parseCount, parseDuration } from '../args';
import { batchColumns, batchFields } from '../batches/batch-columns';
import { watchBatch } from '../batches/watch-batch';
import type { CliContext } from '../context';
import { renderFields, renderTable } from '../output/table';

export function registerBatches(program: Command, ctx: CliContext): void {
  const batches = program.command('batches').alias('batch').description('list, inspect and watch batches of runs');

  batches
    .command('ls')
    .alias('list')
    .description('batches, newest first, with their progress')
    .option('--limit <n>', 'at most this many (1-100)', '20')
    .action(async (o: { limit: string }) => {
      const limit = parseCount(o.limit, '--limit');
      const page = await ok(ctx.api.GET('/api/v1/batches', { params: { query: { limit: Math.min(limit, 100) } } }));
      ctx.emit(page.batches, () =>
        page.batches.length === 0 ? 'no batches\n' : renderTable(batchColumns(ctx), page.batches, ctx.width),
      );
    });

  batches
    .command('get <id>')
    .description('one batch: progress, callbacks and its first run ids')
    .option('--runs <n>', 'how many run ids to show (up to 1000)', '20')
    .action(async (id: string, o: { runs: string }) => {
      const limit = Math.min(Math.max(parseCount(o.runs, '--runs'), 1), 1000);
      const b = await ok(ctx.api.GET('/api/v1/batches/{id}', { params: { path: { id }, query: { limit } } }));
      ctx.emit(b, () => {
        const more = b.nextOffset !== undefined ? ctx.colors.dim(` (first ${b.runs.length} of ${b.total})`) : '';
        return renderFields([...batchFields(ctx, b), ['runs', b.runs.join(' ') + more]]);
      });
    });

  batches
    .command('watch <id>')
    .alias('follow')
    .description('follow a batch live until its callbacks were enqueued; exit 1 if a run was parked or canceled')
    .option('--timeout <duration>', 'stop watching after this long (the batch goes on)')
    .addHelpText(
      'after',
      `
On a terminal the progress bar redraws in place; otherwise one line per change.
With -o json, prints one JSON object per event ({event, data}) as it arrives.
Examples:
  drover batches watch bt-m1x2y3z4-k3j5h7g9
  drover batches watch bt-m1x2y3z4-k3j5h7g9 --timeout 10m && echo all succeeded`,
    )
    .action(async (id: string, o: { timeout?: string }) => {
      await watchBatch(ctx, id, o.timeout ? parseDuration(o.timeout, '--timeout') : undefined);
    });
}
