import type { Command } from 'commander';
import { ok, type components } from '@drover/api-client';
import type { CliContext } from '../context';
import { renderFields, renderTable, type Column } from '../output/table';

type Cluster = components['schemas']['Cluster'];
type Queue = components['schemas']['Queue'];

export function queueColumns(ctx: CliContext): Column<Queue>[] {
  const c = ctx.colors;
  const n = (v: number, color?: (s: string) => string) => (v > 0 && color ? color(String(v)) : String(v));
  return [
    { header: 'queue', value: (q) => q.name, shrink: true },
    { header: 'state', value: (q) => (q.paused ? c.yellow('paused') : 'running') },
    { header: 'waiting', value: (q) => n(q.counts.waiting + q.counts.prioritized), right: true },
    { header: 'active', value: (q) => n(q.counts.active, c.cyan), right: true },
    { header: 'delayed', value: (q) => n(q.counts.delayed), right: true },
    { header: 'parked', value: (q) => n(q.counts.parked, c.red), right: true },
    { header: 'workers', value: (q) => String(q.workers.length), right: true },
    {
      header: 'concurrency',
      value: (q) => {
        const limits = [
          ...(q.policy.globalConcurrency ? [`max ${q.policy.globalConcurrency}`] : []),
          ...(q.policy.concurrencyKey ? [`${q.policy.concurrencyKey.limit} per key`] : []),
        ];
        return `${q.workers.reduce((sum, w) => sum + w.concurrency, 0)}${limits.length ? ` (${limits.join(', ')})` : ''}`;
      },
      right: true,
    },
  ];
}

function renderStatus(ctx: CliContext, cluster: Cluster, queues: Queue[]): string {
  const c = ctx.colors;
  const leader = cluster.leader
    ? `${c.bold(cluster.leader.instance)} (epoch ${cluster.leader.epoch}` +
      (cluster.leader.since ? `, since ${ctx.ago(cluster.leader.since)})` : ')')
    : c.red('none — no scheduler holds the lease; nothing fires');
  const draining = cluster.workers.filter((w) => w.draining).length;
  const head = renderFields([
    ['leader', leader],
    [
      'schedulers',
      cluster.schedulers.length === 0
        ? c.red('0')
        : `${cluster.schedulers.length}: ` +
          cluster.schedulers.map((s) => (s.leader ? `${s.instanceId}*` : s.instanceId)).join(', '),
    ],
    [
      'workers',
      cluster.workers.length === 0
        ? c.yellow('0 — no process runs jobs')
        : `${cluster.workers.length}` + (draining ? ` (${draining} draining)` : ''),
    ],
    ['api', `${cluster.apis.length}`],
  ]);
  const table = queues.length ? renderTable(queueColumns(ctx), queues, ctx.width) : 'no queues\n';
  return `${head}\n${table}`;
}

export function registerStatus(program: Command, ctx: CliContext): void {
  program
    .command('status')
    .description('the cluster at a glance: leader, schedulers, workers, queues with counts')
    .addHelpText(
      'after',
      `
Examples:
  drover status
  drover status -o json | jq '.cluster.leader'`,
    )
    .action(async () => {
      const [cluster, queues] = await Promise.all([
        ok(ctx.api.GET('/api/v1/cluster')),
        ok(ctx.api.GET('/api/v1/queues')),
      ]);
      ctx.emit({ cluster, queues: queues.items }, () => renderStatus(ctx, cluster, queues.items));
    });
}
