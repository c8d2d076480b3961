import { Option, type Command } from 'commander';
import { ok } from '@drover/api-client';
import { RUN_STATUSES, type RunStatus } from '@drover/core/words';
import { parseCount, parseDuration } from '../args';
import type { CliContext } from '../context';
import { collect } from '../paging';
import { renderFields, renderTable } from '../output/table';
import { followRun } from '../runs/follow-run';
import { registerRunLogs } from '../runs/run-logs';
import { renderChildren } from '../flows/flow-tree';
import { renderAttempts, runColumns, runFields } from '../runs/run-columns';

interface RunsLsOptions {
  queue?: string;
  status?: RunStatus;
  routine?: string;
  jobType?: string;
  since?: string;
  until?: string;
  search?: string;
  system?: boolean;
  limit: string;
}

export function registerRuns(program: Command, ctx: CliContext): void {
  const runs = program
    .command('runs')
    .alias('run')
    .description('list, inspect, follow, cancel, approve and reject runs');

  runs
    .command('ls')
    .alias('list')
    .description('runs, newest first: filter, or search payload fields, run ids and errors')
    .option('--queue <queue>', 'only this queue')
    .addOption(new Option('--status <status>', 'only this status').choices(RUN_STATUSES))
    .option('--routine <name>', 'only runs of this routine')
    .option('--job-type <type>', 'only this job type')
    .option('--since <when>', 'created at or after: a duration ago (30m, 2h, 7d) or an ISO 8601 instant')
    .option('--until <when>', 'created at or before: a duration ago or an ISO 8601 instant')
    .option('--search <text>', 'field=value in the payload (customer.id=42), else a run id prefix or error text')
    .option('--system', 'also runs of system routines (scheduled housekeeping, hidden by default)')
    .option('--limit <n>', 'at most this many', '50')
    .addHelpText(
      'after',
      `
A search reads at most the newest 1000 runs of the range per request; the list says when it
stopped there: narrow it with --since/--until, --queue, --routine or --status.
Examples:
  drover runs ls --status running
  drover runs ls --status awaiting-approval
  drover runs ls --routine nightly-report --limit 10
  drover runs ls --search customer.id=42 --since 2h
  drover runs ls --status parked --search ECONNREFUSED --since 2026-11-25T00:00:00Z --until 1d
  drover -o json runs ls --status parked | jq -r '.[].id'`,
    )
    .action(async (o: RunsLsOptions) => {
      const limit = parseCount(o.limit, '--limit');
      let scan = { scanned: 0, limited: false };
      const { items, more } = await collect(async (page_token, page_size) => {
        const page = await ok(
          ctx.api.GET('/api/v1/runs', {
            params: {
              query: {
                queue: o.queue,
                status: o.status,
                routine: o.routine,
                jobType: o.jobType,
                since: o.since,
                until: o.until,
                search: o.search,
                ...(o.system && { include: 'system' }),
                page_size,
                page_token,
              },
            },
          }),
        );
        scan = { scanned: scan.scanned + page.scanned, limited: page.scan_limit_reached };
        return page;
      }, limit);
      ctx.emit(items, () => {
        const note = scan.limited
          ? ctx.colors.dim(
              `(read ${scan.scanned} runs, the most one search reads; narrow --since/--until to look further)\n`,
            )
          : '';
        if (items.length === 0) return `no runs\n${note}`;
        const tail = more ? ctx.colors.dim(`(first ${items.length}; --limit shows more)\n`) : '';
        return renderTable(runColumns(ctx), items, ctx.width) + tail + note;
      });
    });

  runs
    .command('get <id>')
    .description('one run: payload, attempts with their errors, outcome')
    .option('--stacks', "show the attempts' stack traces")
    .addHelpText('after', '\nExamples:\n  drover runs get a-m1x2y3z4-k3j5h7g9 --stacks')
    .action(async (id: string, o: { stacks?: boolean }) => {
      const run = await ok(ctx.api.GET('/api/v1/runs/{id}', { params: { path: { id } } }));
      ctx.emit(
        run,
        () =>
          renderFields(runFields(ctx, run)) + renderChildren(ctx, run) + renderAttempts(ctx, run, o.stacks === true),
      );
    });

  runs
    .command('watch <id>')
    .alias('follow')
    .description('follow a run live (status, attempts, progress) until it ends; exit 1 unless it succeeded')
    .option('--timeout <duration>', 'stop watching after this long (the run goes on)')
    .addHelpText(
      'after',
      `
With -o json, prints one JSON object per event ({event, data}) as it arrives.
Examples:
  drover runs watch a-m1x2y3z4-k3j5h7g9
  drover runs watch a-m1x2y3z4-k3j5h7g9 --timeout 5m && echo done`,
    )
    .action(async (id: string, o: { timeout?: string }) => {
      const timeoutMs = o.timeout ? parseDuration(o.timeout, '--timeout') : undefined;
      await followRun(ctx, id, timeoutMs !== undefined ? { timeoutMs } : {});
    });

  registerRunLogs(runs, ctx);
  registerApprovals(runs, ctx);

  runs
    .command('cancel <id>')
    .description('cancel a run: a queued one never starts, a running one is aborted')
    .option('--reason <text>', 'why, kept on the run')
    .action(async (id: string, o: { reason?: string }) => {
      const res = await ok(
        ctx.api.POST('/api/v1/runs/{id}/cancel', { params: { path: { id } }, body: { reason: o.reason } }),
      );
      ctx.emit(res, () =>
        res.outcome === 'canceled'
          ? `run ${id} canceled\n`
          : `run ${id}: cancel requested; its worker aborts it (drover runs watch ${id})\n`,
      );
    });
}

/** `drover runs approve|reject <id>`: an operator's decision on a run awaiting approval. */
export function registerApprovals(runs: Command, ctx: CliContext): void {
  for (const kind of ['approve', 'reject'] as const) {
    runs
      .command(`${kind} <id>`)
      .description(
        kind === 'approve'
          ? 'approve a run awaiting approval: it goes to its queue'
          : 'reject a run awaiting approval: it never starts (canceled)',
      )
      .option('--reason <text>', "why, kept on the run's approval")
      .addHelpText(
        'after',
        `\nA run that is not awaiting approval is refused (exit 1).\nExamples:\n  drover runs ${kind} a-m1x2y3z4-k3j5h7g9 --reason "checked with finance"`,
      )
      .action(async (id: string, o: { reason?: string }) => {
        const init = { params: { path: { id } }, body: o.reason === undefined ? {} : { reason: o.reason } };
        const run = await ok(
          kind === 'approve'
            ? ctx.api.POST('/api/v1/runs/{id}/approve', init)
            : ctx.api.POST('/api/v1/runs/{id}/reject', init),
        );
        ctx.emit(run, () => `run ${id} ${kind === 'approve' ? 'approved' : 'rejected'}; it is ${run.status}\n`);
      });
  }
}
