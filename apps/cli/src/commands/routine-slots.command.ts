import type { Command } from 'commander';
import { ok } from '@drover/api-client';
import { formatInstant } from '@drover/core/human-time';
import { SLOT_FATES, type SlotFate } from '@drover/core/words';
import { parseInstant } from '../args';
import type { CliContext } from '../context';
import { renderTable } from '../output/table';

/** `drover routines slots`: the slot ledger of a routine as a table, one row per slot. */
export function registerRoutineSlots(routines: Command, ctx: CliContext): void {
  routines
    .command('slots <name>')
    .description("the slot ledger: every slot of the routine's schedule in a range with its fate")
    .option(
      '--from <when>',
      'ISO instant, a duration from now (-6h: ago) or today|tomorrow HH:MM (default: 50 slots back)',
    )
    .option('--to <when>', 'the same forms (default now)')
    .addHelpText(
      'after',
      '\nFates: ran, skipped (with a reason), superseded, due, not-yet-due, no-record. At most 1000 slots.\n' +
        'Examples:\n  drover routines slots nightly-backup\n  drover routines slots every-minute --from -2h --to 0s',
    )
    .action(async (name: string, o: { from?: string; to?: string }) => {
      const now = ctx.io.now();
      const query = {
        ...(o.from !== undefined && { from: parseInstant(o.from, '--from', now) }),
        ...(o.to !== undefined && { to: parseInstant(o.to, '--to', now) }),
      };
      const l = await ok(ctx.api.GET('/api/v1/routines/{name}/slots', { params: { path: { name }, query } }));
      ctx.emit(l, () => {
        const paint = (f: SlotFate) =>
          f === 'ran'
            ? ctx.colors.green(f)
            : f === 'no-record'
              ? ctx.colors.red(f)
              : f === 'skipped' || f === 'superseded'
                ? ctx.colors.yellow(f)
                : f;
        const counts = SLOT_FATES.filter((f) => (l.counts[f] ?? 0) > 0).map((f) => `${l.counts[f]} ${f}`);
        const head = `${l.routine}: ${l.items.length} slots in (${formatInstant(l.from)}, ${formatInstant(l.to)}]${counts.length ? ` — ${counts.join(', ')}` : ''}\n`;
        if (l.items.length === 0) return `${head}no slots in this range\n`;
        type Item = (typeof l.items)[number];
        // A routine with a `triggers` list: which trigger each slot came from.
        const triggerColumn = l.items.some((i) => i.trigger !== undefined)
          ? [{ header: 'trigger', value: (i: Item) => i.trigger ?? '' }]
          : [];
        return (
          head +
          renderTable(
            [
              { header: 'slot (utc)', value: (i) => formatInstant(i.slot) + (i.onSchedule ? '' : ' *') },
              ...triggerColumn,
              { header: 'fate', value: (i) => paint(i.fate) },
              // The recorded text says more when there is one (`excluded: holidays-de`, `skipped-by-operator: by ana`).
              {
                header: 'reason',
                value: (i) =>
                  i.reason
                    ? (i.detail ?? i.reason) +
                      (i.recorded ? '' : i.fate === 'not-yet-due' ? ' (to come)' : ' (inferred)')
                    : '',
              },
              { header: 'run', value: (i) => i.runs.map((r) => r.id).join(' ') },
              {
                header: 'status',
                // A buffer-one run made while another was active: it waited (or still waits) for it.
                value: (i) =>
                  i.runs.map((r) => ctx.colors.status(r.status) + (r.bufferedBehind ? ' (buffered)' : '')).join(' '),
              },
              { header: 'attempts', value: (i) => i.runs.map((r) => String(r.attempt)).join(' ') },
              { header: 'withdrawn', value: (i) => i.withdrawn.map((r) => r.id).join(' ') },
            ],
            l.items,
            ctx.width,
          ) +
          (l.items.some((i) => !i.onSchedule) ? '* not on the current schedule (the trigger changed since)\n' : '')
        );
      });
    });
}
