import type { Command } from 'commander';
import { ok } from '@drover/api-client';
import type { CliContext } from '../context';
import { renderTable } from '../output/table';

const path = (name: string) => ({ params: { path: { name } } });

/** Skipping single slots of a routine, under `drover routines`. */
export function registerRoutineSkips(routines: Command, ctx: CliContext): void {
  routines
    .command('skip <name> <slot>')
    .description('skip one future slot of a routine: it is recorded skipped-by-operator and never runs')
    .addHelpText(
      'after',
      "\nThe slot is an ISO 8601 instant with an offset, one of the schedule's (see `drover routines preview`);" +
        '\nanother instant is refused with the nearest slots. A run already armed for it is withdrawn.' +
        '\nExamples:\n  drover routines skip nightly-backup 2026-12-25T02:00:00+01:00',
    )
    .action(async (name: string, slot: string) => {
      const res = await ok(ctx.api.POST('/api/v1/routines/{name}/skip', { ...path(name), body: { slot } }));
      ctx.emit(res, () =>
        res.created
          ? `slot ${res.skip.slot} of ${name} will be skipped\n`
          : `slot ${res.skip.slot} of ${name} was skipped already (by ${res.skip.by})\n`,
      );
    });

  routines
    .command('skips <name>')
    .description("a routine's pending operator skips; --undo <slot> takes one back")
    .option('--undo <slot>', 'undo the pending skip of this slot (ISO 8601)')
    .addHelpText(
      'after',
      '\nExamples:\n  drover routines skips nightly-backup\n  drover routines skips nightly-backup --undo 2026-12-25T01:00:00Z',
    )
    .action(async (name: string, o: { undo?: string }) => {
      if (o.undo !== undefined) {
        await ok(ctx.api.DELETE('/api/v1/routines/{name}/skips/{slot}', { params: { path: { name, slot: o.undo } } }));
        ctx.emit({ undone: o.undo }, () => `skip of ${o.undo} undone: the slot runs as usual\n`);
        return;
      }
      const { items } = await ok(ctx.api.GET('/api/v1/routines/{name}/skips', path(name)));
      ctx.emit(items, () =>
        items.length
          ? renderTable(
              [
                { header: 'slot', value: (i) => i.slot },
                { header: 'in', value: (i) => ctx.ago(i.slot) },
                { header: 'by', value: (i) => i.by },
                { header: 'asked', value: (i) => ctx.ago(i.at) },
              ],
              items,
              ctx.width,
            )
          : `no pending skips of ${name}\n`,
      );
    });
}
