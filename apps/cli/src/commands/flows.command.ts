import type { Command } from 'commander';
import { ok } from '@drover/api-client';
import { parseDuration } from '../args';
import { UsageError } from '../cli-error';
import type { CliContext } from '../context';
import { flowRunsOf } from '../flows/flow-file';
import { readFlowTree, renderFlowTree } from '../flows/flow-tree';
import { readInput } from '../input';
import { followRun } from '../runs/follow-run';

export function registerFlows(program: Command, ctx: CliContext): void {
  const flows = program
    .command('flows')
    .alias('flow')
    .description('enqueue a flow (a run that waits for its children) and show its tree');

  flows
    .command('add')
    .description('enqueue a flow from a file: a run with `children`, each a run with its own (YAML or JSON)')
    .requiredOption('-f, --file <path>', 'the flow file (- for stdin)')
    .option('-w, --wait', 'follow the top run until it ends; exit 1 unless it succeeded')
    .option('--timeout <duration>', 'with --wait: give up waiting after this long')
    .addHelpText(
      'after',
      `
A run takes jobType, payload, queue, priority, maxAttempts, delay (a leaf's: 10m) and, for a
child, onFailure: fail (default: a parked child parks its parent) or ignore.
Example file:
  jobType: report.build
  queue: reports
  payload: { month: 2026-11 }
  children:
    - { jobType: sales.fetch, queue: etl, payload: { region: eu } }
    - { jobType: sales.fetch, queue: etl, payload: { region: us }, onFailure: ignore }
Examples:
  drover flows add -f month-end.yaml --wait
  drover flows tree <top run id>`,
    )
    .action(async (o: { file: string; wait?: boolean; timeout?: string }) => {
      const input = readInput(o.file);
      let tree: unknown;
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when used: a start without it is tens of ms faster
        tree = (require('yaml') as typeof import('yaml')).parse(input.text);
      } catch (err) {
        throw new UsageError(`${input.name}: ${(err as Error).message.split('\n')[0]}`);
      }
      const runs = flowRunsOf(tree, input.name);
      const timeoutMs = o.timeout ? parseDuration(o.timeout, '--timeout') : undefined;
      const created = await ok(ctx.api.POST('/api/v1/flows', { body: { runs } }));
      const text = `enqueued a flow of ${created.runs.length} runs: top run ${created.id}\n`;
      if (!o.wait) {
        ctx.emit(created, () => text);
        return;
      }
      if (ctx.human) ctx.io.out(text);
      ctx.stream('created', created);
      await followRun(ctx, created.id, timeoutMs !== undefined ? { timeoutMs } : {});
    });

  flows
    .command('tree <id>')
    .description('a run and every run below it in its flow, with their statuses')
    .addHelpText(
      'after',
      '\nExamples:\n  drover flows tree a-m1x2y3z4-k3j5h7g9\n  drover -o json flows tree a-m1x2y3z4-k3j5h7g9',
    )
    .action(async (id: string) => {
      const tree = await readFlowTree(ctx, id);
      ctx.emit(tree, () => renderFlowTree(ctx, tree));
    });
}
