import type { Command } from 'commander';
import { ok } from '@drover/api-client';
import { parseCount } from '../args';
import type { CliContext } from '../context';
import { collect } from '../paging';
import { renderTable } from '../output/table';
import { terminalSafe } from '../output/terminal-safe';

export function registerAudit(program: Command, ctx: CliContext): void {
  program
    .command('audit')
    .description('who changed what, newest first (admin)')
    .option('--limit <n>', 'at most this many', '50')
    .option('--refused', 'the calls refused at the door (no or a bad token, or a role too low) instead')
    .action(async (o: { limit: string; refused?: boolean }) => {
      const log = o.refused ? 'refused' : 'principals';
      const { items } = await collect(
        (page_token, page_size) =>
          ok(ctx.api.GET('/api/v1/audit', { params: { query: { page_size, page_token, log } } })),
        parseCount(o.limit, '--limit'),
      );
      // Every field is text a caller chose (a path, a token name): none of it reaches the terminal raw.
      const t = terminalSafe;
      ctx.emit(items, () =>
        items.length
          ? renderTable(
              [
                { header: 'at', value: (e) => t(e.at) },
                { header: 'token', value: (e) => t(`${e.token} (${e.role})`) },
                { header: 'action', value: (e) => t(e.action) },
                { header: 'target', value: (e) => t(e.target), shrink: true },
                {
                  header: 'status',
                  value: (e) => (e.status >= 400 ? ctx.colors.red(String(e.status)) : String(e.status)),
                },
                { header: 'from', value: (e) => t(e.ip) },
              ],
              items,
              ctx.width,
            )
          : o.refused
            ? 'no refused calls\n'
            : 'no audit entries\n',
      );
    });
}
