import type { Command } from 'commander';
import { ok } from '@drover/api-client';
import type { CliContext } from '../context';
import { progressLine } from '../operations/progress-bar';
import { renderFields } from '../output/table';

export function registerOperations(program: Command, ctx: CliContext): void {
  const ops = program.command('operations').alias('operation').description('bulk operations (parked replay and purge)');
  ops
    .command('get <id>')
    .description('one bulk operation: status and progress')
    .action(async (id: string) => {
      const op = await ok(ctx.api.GET('/api/v1/operations/{id}', { params: { path: { id } } }));
      ctx.emit(op, () =>
        renderFields([
          ['operation', op.id],
          ['kind', `${op.kind} on queue ${op.queue}`],
          ['status', ctx.colors.status(op.status) + (op.error ? ` — ${op.error}` : '')],
          ['progress', progressLine(op, ctx.colors, ctx.width ?? 80)],
          ['filter', JSON.stringify(op.filter)],
          ['by', `${op.by} on ${op.instance}`],
          ['started', ctx.ago(op.startedAt)],
          ['finished', ctx.ago(op.finishedAt)],
        ]),
      );
    });
}
