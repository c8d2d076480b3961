import type { Command } from 'commander';
import { ok } from '@drover/api-client';
import type { CliContext } from '../context';
import { renderFields, renderTable } from '../output/table';
import { confirm } from './confirm';

const path = (name: string) => ({ params: { path: { name } } });
const num = (v: number | null) => (v === null ? 'never' : String(Math.round(v * 100) / 100));

/** A selector routine's overrides and the dry run of its candidates, under `drover routines`. */
export function registerRoutineOverrides(routines: Command, ctx: CliContext): void {
  routines
    .command('override <name> <key>')
    .description("serve a selector routine's candidate key next, before the automatic candidates")
    .addHelpText(
      'after',
      '\nRefused while an override for the key is still queued or running.\nExamples:\n  drover routines override metas critic:api',
    )
    .action(async (name: string, key: string) => {
      const { runId } = await ok(ctx.api.POST('/api/v1/routines/{name}/overrides', { ...path(name), body: { key } }));
      ctx.emit({ runId }, () => `override ${key} of ${name}: run ${runId}\n`);
    });

  routines
    .command('overrides <name>')
    .description("a selector routine's pending overrides; --clear cancels those not started")
    .option('--clear', 'cancel the overrides that have not started (never the automatic runs)')
    .option('-y, --yes', 'with --clear: do not ask')
    .addHelpText(
      'after',
      '\nExamples:\n  drover routines overrides metas\n  drover routines overrides metas --clear --yes',
    )
    .action(async (name: string, o: { clear?: boolean; yes?: boolean }) => {
      if (o.clear) {
        await confirm(ctx, `cancel the pending overrides of ${name}?`, o.yes);
        const res = await ok(ctx.api.DELETE('/api/v1/routines/{name}/overrides', path(name)));
        ctx.emit(res, () =>
          res.cleared.length ? `cleared ${res.cleared.length}: ${res.cleared.join(' ')}\n` : 'no override to clear\n',
        );
        return;
      }
      const { items } = await ok(ctx.api.GET('/api/v1/routines/{name}/overrides', path(name)));
      ctx.emit(items, () =>
        items.length
          ? renderTable(
              [
                { header: 'key', value: (i) => i.key },
                { header: 'run', value: (i) => i.runId },
                { header: 'status', value: (i) => ctx.colors.status(i.status) },
                { header: 'created', value: (i) => ctx.ago(i.createdAt) },
                { header: 'by', value: (i) => i.createdBy ?? '' },
              ],
              items,
              ctx.width,
            )
          : `no pending overrides of ${name}\n`,
      );
    });

  routines
    .command('candidates <name>')
    .description("dry run: a selector routine's candidates as its next tick would rank them, and why")
    .addHelpText(
      'after',
      "\nA scheduler runs the routine's provider now; nothing is enqueued.\nExamples:\n  drover routines candidates metas",
    )
    .action(async (name: string) => {
      const r = await ok(ctx.api.GET('/api/v1/routines/{name}/candidates', path(name)));
      ctx.emit(r, () => {
        const head = renderFields([
          ['routine', r.routine],
          ['provider', r.provider],
          ['max per tick', String(r.maxPerTick)],
          ['depth weight', String(r.depthWeight)],
          ['asked', ctx.ago(r.at)],
          ...(r.error ? [['error', ctx.colors.red(r.error)] as [string, string]] : []),
        ]);
        const table = r.items.length
          ? renderTable(
              [
                { header: '#', value: (i) => String(i.rank) },
                { header: 'key', value: (i) => i.key },
                { header: 'band', value: (i) => String(i.band) },
                { header: 'staleness (s)', value: (i) => num(i.stalenessSec) },
                { header: 'depth', value: (i) => (i.depth === null ? '' : String(i.depth)) },
                { header: 'weighted (s)', value: (i) => num(i.weightedStalenessSec) },
                { header: 'verdict', value: (i) => (i.verdict === 'chosen' ? ctx.colors.green(i.verdict) : i.verdict) },
              ],
              r.items,
              ctx.width,
            )
          : 'no candidates\n';
        return `${head}\n${table}`;
      });
    });
}
