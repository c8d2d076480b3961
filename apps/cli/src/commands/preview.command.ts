import type { Command } from 'commander';
import type { DstShift } from '@drover/core';
import { UsageError } from '../cli-error';
import type { CliContext } from '../context';
import { renderTable, type Column } from '../output/table';

const DEFAULT_COUNT = 10;
const MAX_COUNT = 1000;

/** One fire, the same shape as the API's `GET /routines/{name}/preview` items. */
export interface PreviewItem {
  at: string;
  local: string;
  dst?: DstShift;
}

export interface PreviewReport {
  cron: string;
  tz: string;
  from: string;
  items: PreviewItem[];
}

interface PreviewOptions {
  tz?: string;
  from?: string;
  count: string;
}

const FOOTNOTES: Record<DstShift, string> = {
  gap: 'gap: that wall time does not exist that day (clocks spring forward); it fires at the first instant after the gap',
  overlap: 'overlap: that wall time happens twice that day (clocks fall back); it fires once, at the first',
};

/** The option or argument a trigger-schema issue is about, as the user typed it. */
const ARG_OF: Record<string, string> = { cron: '<cron>', tz: '--tz' };

function parseCount(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_COUNT) {
    throw new UsageError(`--count must be a whole number from 1 to ${MAX_COUNT} (got "${text}")`);
  }
  return n;
}

function render(ctx: CliContext, report: PreviewReport): string {
  const c = ctx.colors;
  const columns: Column<[number, PreviewItem]>[] = [
    { header: '#', value: ([i]) => String(i + 1), right: true },
    { header: 'utc', value: ([, f]) => f.at },
    { header: 'local', value: ([, f]) => f.local },
    { header: 'in', value: ([, f]) => ctx.ago(f.at) },
    { header: 'dst', value: ([, f]) => (f.dst ? c.yellow(f.dst) : '') },
  ];
  if (report.items.length === 0) return 'no fires\n';
  const table = renderTable(columns, [...report.items.entries()], ctx.width);
  const shifts = new Set(report.items.flatMap((f) => (f.dst ? [f.dst] : [])));
  const notes = [...shifts].map((s) => c.dim(FOOTNOTES[s]) + '\n').join('');
  return table + (notes ? `\n${notes}` : '');
}

export function registerPreview(program: Command, ctx: CliContext): void {
  program
    .command('preview')
    .description('the next fire times of a cron expression, in UTC and local time; no cluster needed')
    .argument('<cron>', '5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first); quote it')
    .option('--tz <zone>', 'IANA time zone the expression is read in (default UTC)')
    .option('--from <instant>', 'start after this ISO 8601 instant with an offset (default now)')
    .option('--count <n>', `how many fires, 1-${MAX_COUNT}`, String(DEFAULT_COUNT))
    .addHelpText(
      'after',
      `
Fires a daylight-saving change moved are marked: gap (the wall time does not exist; it fires at
the first instant after) and overlap (the wall time happens twice; it fires once, at the first),
exactly as the scheduler fires them.

Examples:
  drover preview '0 9 * * 1-5' --tz Europe/Paris
  drover preview '30 2 * * *' --tz Europe/Berlin --from 2026-03-27T00:00:00Z --count 3
  drover -o json preview '*/15 * * * *' | jq -r '.items[].at'`,
    )
    .action(async (cron: string, opts: PreviewOptions) => {
      const count = parseCount(opts.count);
      // Lazily, like every command's heavy imports: the CLI starts fast for the others.
      const core = await import('@drover/core');
      const parsed = core
        .triggerSchema()
        .safeParse({ kind: 'cron', cron, ...(opts.tz !== undefined && { tz: opts.tz }) });
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new UsageError(`${ARG_OF[String(issue.path[0])] ?? '<cron>'}: ${issue.message}`);
      }
      const fromMs = opts.from === undefined ? ctx.io.now() : core.parseIsoInstant(opts.from);
      if (fromMs === undefined) {
        throw new UsageError(
          `--from: ${JSON.stringify(opts.from)} is not an ISO 8601 instant with an offset; e.g. "2026-03-29T00:00:00Z"`,
        );
      }
      const report: PreviewReport = {
        cron,
        tz: opts.tz ?? 'UTC',
        from: new Date(fromMs).toISOString(),
        items: core.previewFires(parsed.data, fromMs, count).map((f) => ({
          at: new Date(f.at).toISOString(),
          local: f.local,
          ...(f.dst && { dst: f.dst }),
        })),
      };
      ctx.emit(report, () => render(ctx, report));
    });
}
