import type { Command } from 'commander';
import { ok, type components } from '@drover/api-client';
import { formatInstant } from '@drover/core/human-time';
import { parseCount } from '../args';
import { CliError } from '../cli-error';
import type { CliContext } from '../context';
import { ExitCode } from '../exit-codes';
import { terminalSafe } from '../output/terminal-safe';

type LogLine = components['schemas']['RunLogLine'];

/** Lines asked for per page (the api's most). */
const PAGE = 1_000;

/** `2026-11-26 08:00:00 UTC  message  {"fields":…}`, every control character shown escaped. */
export function renderLogLine(ctx: Pick<CliContext, 'colors'>, l: LogLine): string {
  const at = l.at ? `${ctx.colors.dim(formatInstant(l.at))}  ` : '';
  const fields = l.fields ? `  ${ctx.colors.dim(terminalSafe(JSON.stringify(l.fields)))}` : '';
  return `${at}${terminalSafe(l.message)}${fields}\n`;
}

/** The note that a run's first lines are gone (its queue keeps the newest `retention.logLines`). */
function droppedNote(ctx: CliContext, dropped: number, from: number): void {
  if (dropped >= from)
    ctx.note(`(${dropped - from + 1} earlier line(s) no longer kept: the queue's retention.logLines)`);
}

/** Prints the run's kept lines from `from` on, page by page; answers the next line's number. */
async function printLogs(ctx: CliContext, id: string, from: number): Promise<number> {
  const all: LogLine[] = [];
  let next = from;
  for (let first = true; ; first = false) {
    const page = await ok(
      ctx.api.GET('/api/v1/runs/{id}/logs', { params: { path: { id }, query: { from: next, limit: PAGE } } }),
    );
    if (first && ctx.human) droppedNote(ctx, page.dropped, from);
    if (ctx.human) for (const l of page.lines) ctx.io.out(renderLogLine(ctx, l));
    else all.push(...page.lines);
    next = page.next;
    if (page.lines.length < PAGE) break;
  }
  if (!ctx.human) ctx.emit(all, () => '');
  return next;
}

/**
 * Follows the run's log over `GET /runs/{id}/logs/stream` until the api sends `end` (the run
 * settled and its last lines were sent). A dropped stream is reopened from the next line's number.
 */
async function followLogs(ctx: CliContext, id: string, from: number): Promise<void> {
  let next = from;
  let noted = false;
  for (let reconnects = 0; ; reconnects++) {
    if (reconnects > 20) throw new CliError(`the log stream of run ${id} keeps dropping`, ExitCode.failed);
    if (reconnects > 0) await new Promise((r) => setTimeout(r, 1000));
    for await (const event of ctx.events(`/api/v1/runs/${encodeURIComponent(id)}/logs/stream?from=${next}`)) {
      const data = JSON.parse(event.data) as LogLine & { next?: number };
      ctx.stream(event.event, data);
      if (event.event === 'line') {
        if (ctx.human && !noted && data.seq > next) ctx.note(`(${data.seq - next} line(s) no longer kept)`);
        noted = true;
        if (ctx.human) ctx.io.out(renderLogLine(ctx, data));
        next = data.seq + 1;
      } else if (event.event === 'end') return;
    }
  }
}

export function registerRunLogs(runs: Command, ctx: CliContext): void {
  runs
    .command('logs <id>')
    .description("the lines a run's handler wrote (ctx.log), oldest first; --follow until the run ends")
    .option('-f, --follow', 'keep printing new lines until the run has settled')
    .option('--from-line <n>', 'start at this line number (lines are numbered from 1)', '1')
    .addHelpText(
      'after',
      `
A run keeps its newest lines (its queue's retention.logLines, 1000 unless set).
With -o json: the lines as a JSON array; with --follow one JSON object per event ({event, data}).
Examples:
  drover runs logs a-m1x2y3z4-k3j5h7g9
  drover runs logs a-m1x2y3z4-k3j5h7g9 --follow`,
    )
    .action(async (id: string, o: { follow?: boolean; fromLine: string }) => {
      const from = parseCount(o.fromLine, '--from-line', Number.MAX_SAFE_INTEGER);
      if (o.follow) await followLogs(ctx, id, from);
      else await printLogs(ctx, id, from);
    });
}
