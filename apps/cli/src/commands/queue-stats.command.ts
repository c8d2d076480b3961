import type { Command } from 'commander';
import { ok, type components } from '@drover/api-client';
import type { CliContext } from '../context';
import { humanDuration } from '../output/time';
import { renderFields, renderTable } from '../output/table';

type Totals = components['schemas']['QueueTotals'];
type Lateness = { p50: number | null; p95: number | null; p99: number | null };
interface Row {
  queue: string;
  totals: Totals;
  latenessMs: Lateness;
}

const ms = (v: number | null) => (v === null ? '-' : humanDuration(v));

function columns(ctx: CliContext) {
  const c = ctx.colors;
  const n = (v: number, color: (s: string) => string) => (v > 0 ? color(String(v)) : String(v));
  return [
    { header: 'queue', value: (r: Row) => r.queue, shrink: true },
    { header: 'processed', value: (r: Row) => String(r.totals.processed), right: true },
    { header: 'failed', value: (r: Row) => n(r.totals.failed, c.yellow), right: true },
    { header: 'parked', value: (r: Row) => n(r.totals.parked, c.red), right: true },
    { header: 'late p50', value: (r: Row) => ms(r.latenessMs.p50), right: true },
    { header: 'late p95', value: (r: Row) => ms(r.latenessMs.p95), right: true },
  ];
}

/** `drover queues stats [name]`: processed / failed / parked over a window, per queue and overall. */
export function registerQueueStats(queues: Command, ctx: CliContext): void {
  queues
    .command('stats [name]')
    .description('processed, failed and parked totals over a window: every queue and all together, or one queue')
    .option('--window <window>', '1h to 7d', '24h')
    .addHelpText(
      'after',
      `
"processed" counts attempts that ended on a worker; "failed" those that failed (retried or parked);
"parked" runs parked. Lateness: how late first attempts started.

Examples:
  drover queues stats
  drover queues stats emails --window 1h`,
    )
    .action(async (name: string | undefined, o: { window: string }) => {
      const query = { window: o.window };
      if (name !== undefined) {
        const s = await ok(ctx.api.GET('/api/v1/queues/{name}/stats', { params: { path: { name }, query } }));
        const t = s.totals;
        ctx.emit(s, () =>
          renderFields([
            ['queue', ctx.colors.bold(s.queue)],
            ['window', `${s.window} (since ${ctx.ago(s.from)})`],
            ['processed', String(t.processed)],
            ['failed', `${t.failed} (${t.retried} retried, ${t.parked} parked)`],
            ['parked', String(t.parked)],
            ['succeeded', String(t.succeeded)],
            ['canceled', String(t.canceled)],
            ['lateness p50/p95/p99', `${ms(s.latenessMs.p50)} / ${ms(s.latenessMs.p95)} / ${ms(s.latenessMs.p99)}`],
          ]),
        );
        return;
      }
      const s = await ok(ctx.api.GET('/api/v1/stats', { params: { query } }));
      const rows: Row[] = [...s.queues, { queue: ctx.colors.bold('all'), totals: s.totals, latenessMs: s.latenessMs }];
      ctx.emit(s, () => `window ${s.window} (since ${ctx.ago(s.from)})\n${renderTable(columns(ctx), rows, ctx.width)}`);
    });
}
