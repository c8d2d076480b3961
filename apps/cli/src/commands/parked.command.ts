import type { Command } from 'commander';
import { ok, type components } from '@drover/api-client';
import { UsageError } from '../cli-error';
import { parseCount, parseInstant } from '../args';
import type { CliContext } from '../context';
import { runOperation } from '../operations/follow-operation';
import { changedBy } from '../operations/progress-bar';
import { renderTable } from '../output/table';
import { collect } from '../paging';
import { runColumns, type Run } from '../runs/run-columns';
import { confirm } from './confirm';

type Filter = components['schemas']['Operation']['filter'];

interface FilterOptions {
  jobType?: string;
  routine?: string;
  error?: string;
  before?: string;
  after?: string;
}

function withFilters(cmd: Command): Command {
  return cmd
    .option('--job-type <type>', 'only this job type')
    .option('--routine <name>', 'only runs of this routine')
    .option('--error <text>', 'only runs whose error contains this text')
    .option('--before <when>', 'parked before this instant (ISO, or -2h)')
    .option('--after <when>', 'parked after this instant (ISO, or -2h)');
}

function filterOf(ctx: CliContext, o: FilterOptions): Filter {
  const now = ctx.io.now();
  return {
    ...(o.jobType && { jobType: o.jobType }),
    ...(o.routine && { routine: o.routine }),
    ...(o.error && { error: o.error }),
    ...(o.before && { before: parseInstant(o.before, '--before', now) }),
    ...(o.after && { after: parseInstant(o.after, '--after', now) }),
  };
}

/** The queue of a parked run: `--queue`, else the run's own. */
async function queueOf(ctx: CliContext, id: string, queue?: string): Promise<string> {
  if (queue) return queue;
  const run = await ok(ctx.api.GET('/api/v1/runs/{id}', { params: { path: { id } } }));
  return run.queue;
}

async function listParked(ctx: CliContext, queue: string, f: Filter, limit: number): Promise<Run[]> {
  const { items } = await collect(
    (page_token, page_size) =>
      ok(
        ctx.api.GET('/api/v1/queues/{name}/parked', {
          params: { path: { name: queue }, query: { ...f, page_size, page_token } },
        }),
      ),
    limit,
  );
  return items;
}

type Bulk = 'replay' | 'purge';

async function bulk(
  ctx: CliContext,
  kind: Bulk,
  queue: string,
  filter: Filter,
  o: { dryRun?: boolean; yes?: boolean; rate?: string },
) {
  const route = kind === 'replay' ? '/api/v1/queues/{name}/parked/replay' : '/api/v1/queues/{name}/parked/purge';
  const ratePerSecond = o.rate ? parseCount(o.rate, '--rate', 1000) : undefined;
  const call = (dryRun: boolean) =>
    ctx.api.POST(route, {
      params: { path: { name: queue } },
      body: { filter, dryRun, ...(ratePerSecond && { ratePerSecond }) },
    });
  const dry = (await ok(call(true))) as { matched: number };
  const what =
    `${dry.matched} parked run${dry.matched === 1 ? '' : 's'} of queue ${queue}` +
    (Object.keys(filter).length ? ` matching ${JSON.stringify(filter)}` : '');
  if (o.dryRun) {
    ctx.emit({ dryRun: true, matched: dry.matched }, () => `dry run: would ${kind} ${what}\n`);
    return;
  }
  if (dry.matched === 0) {
    ctx.emit({ dryRun: false, matched: 0 }, () => `nothing to ${kind}: no ${what.slice(2)}\n`);
    return;
  }
  await confirm(ctx, `${kind} ${what}?`, o.yes);
  const op = await runOperation(ctx, async () => (await ok(call(false))) as { operationId: string; matched: number });
  if (ctx.human) {
    const verb = kind === 'replay' ? 'replayed' : 'purged';
    ctx.io.out(
      `${kind} ${op.status}: ${changedBy(op)} ${verb}, ${op.skipped} skipped, ${op.failed} failed (operation ${op.id})
`,
    );
  }
}

export function registerParked(program: Command, ctx: CliContext): void {
  const parked = program
    .command('parked')
    .description('runs that used up their attempts (the dead-letter state): list, replay, purge');

  withFilters(
    parked
      .command('ls')
      .alias('list')
      .description('parked runs with their errors (every queue unless --queue)')
      .option('--queue <queue>', 'only this queue')
      .option('--limit <n>', 'at most this many per queue', '50'),
  )
    .addHelpText(
      'after',
      '\nExamples:\n  drover parked ls --queue default --error timeout\n  drover -o json parked ls --queue default --limit 1000',
    )
    .action(async (o: FilterOptions & { queue?: string; limit: string }) => {
      const limit = parseCount(o.limit, '--limit');
      const filter = filterOf(ctx, o);
      const queues = o.queue ? [o.queue] : (await ok(ctx.api.GET('/api/v1/queues'))).items.map((q) => q.name);
      const runs = (await Promise.all(queues.map((q) => listParked(ctx, q, filter, limit)))).flat();
      ctx.emit(runs, () => (runs.length ? renderTable(runColumns(ctx), runs, ctx.width) : 'no parked runs\n'));
    });

  for (const kind of ['replay', 'purge'] as const) {
    withFilters(
      parked
        .command(`${kind} [id]`)
        .description(
          kind === 'replay'
            ? 'replay one parked run as a new run, or --all matching the filters (operator)'
            : 'delete one parked run for good, or --all matching the filters (admin)',
        )
        .option('--queue <queue>', "the queue (with --all); one run's queue is looked up")
        .option('--all', 'every parked run of --queue that matches the filters')
        .option('--dry-run', 'only count what would be affected')
        .option('--rate <n>', "runs per second (default: the api's)")
        .option('-y, --yes', 'do not ask for confirmation'),
    )
      .addHelpText(
        'after',
        `
Bulk: counts first (a dry run), asks, then shows a progress bar until the operation ends.
Examples:
  drover parked ${kind} a-m1x2y3z4-k3j5h7g9
  drover parked ${kind} --queue default --all --error "ECONNREFUSED" --dry-run
  drover parked ${kind} --queue default --all --job-type http.request --yes`,
      )
      .action(
        async (
          id: string | undefined,
          o: FilterOptions & { queue?: string; all?: boolean; dryRun?: boolean; yes?: boolean; rate?: string },
        ) => {
          if (id && o.all) throw new UsageError('give a run id or --all, not both');
          if (!id && !o.all) throw new UsageError(`give a run id, or --all --queue <queue> to ${kind} every match`);
          if (o.all) {
            if (!o.queue) throw new UsageError('--all needs --queue <queue>');
            await bulk(ctx, kind, o.queue, filterOf(ctx, o), o);
            return;
          }
          const queue = await queueOf(ctx, id!, o.queue);
          if (o.dryRun) {
            const run = await ok(ctx.api.GET('/api/v1/runs/{id}', { params: { path: { id: id! } } }));
            ctx.emit(
              { dryRun: true, matched: run.status === 'parked' ? 1 : 0 },
              () => `dry run: would ${kind} run ${id} (${run.status})\n`,
            );
            return;
          }
          if (kind === 'replay') {
            const res = await ok(
              ctx.api.POST('/api/v1/queues/{name}/parked/{id}/replay', { params: { path: { name: queue, id: id! } } }),
            );
            ctx.emit(res, () => `replayed ${res.replayOf} as run ${res.runId}\n`);
          } else {
            await confirm(ctx, `purge parked run ${id}?`, o.yes);
            await ok(
              ctx.api.DELETE('/api/v1/queues/{name}/parked/{id}', { params: { path: { name: queue, id: id! } } }),
            );
            ctx.emit({ purged: id }, () => `purged run ${id}\n`);
          }
        },
      );
  }
}
