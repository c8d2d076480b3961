import type { Command } from 'commander';
import { ok } from '@drover/api-client';
import type { CliContext } from '../context';
import { renderTable } from '../output/table';

export function registerWorkers(program: Command, ctx: CliContext): void {
  const workers = program.command('workers').alias('worker').description('worker processes and what they consume');
  workers
    .command('ls', { isDefault: true })
    .alias('list')
    .description('every worker: queues with concurrency, job types, heartbeat, draining')
    .action(async () => {
      const cluster = await ok(ctx.api.GET('/api/v1/cluster'));
      const rows = cluster.workers;
      ctx.emit(rows, () =>
        rows.length
          ? renderTable(
              [
                { header: 'instance', value: (w) => w.instanceId },
                { header: 'state', value: (w) => (w.draining ? ctx.colors.yellow('draining') : 'running') },
                {
                  header: 'queues',
                  value: (w) => w.queues.map((q) => `${q.name}×${q.concurrency}`).join(', '),
                  shrink: true,
                },
                { header: 'job types', value: (w) => w.jobTypes.join(', '), shrink: true },
                { header: 'host', value: (w) => `${w.hostname}:${w.pid}`, shrink: true },
                { header: 'version', value: (w) => w.version },
                { header: 'started', value: (w) => ctx.ago(w.startedAt) },
                { header: 'heartbeat', value: (w) => ctx.ago(w.heartbeatAt) },
              ],
              rows,
              ctx.width,
            )
          : ctx.colors.yellow('no workers: nothing runs jobs\n'),
      );
    });
}
