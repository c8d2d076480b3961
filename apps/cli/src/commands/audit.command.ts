import type { Command } from 'commander';
import { ok } from '@drover/api-client';
import { parseCount } from '../args';
import type { CliContext } from '../context';
import { collect } from '../paging';
import { renderTable } from '../output/table';

export function registerAudit(program: Command, ctx: CliContext): void {
  program
    .command('audit')
    .description('who changed what, newest first (admin)')
    .option('--limit <n>', 'at most this many', '50')
    .action(async (o: { limit: string }) => {
      const { items } = await collect(
        (page_token, page_size) => ok(ctx.api.GET('/api/v1/audit', { params: { query: { page_size, page_token } } })),
        parseCount(o.limit, '--limit'),
      );
      ctx.emit(items, () =>
        items.length
          ? renderTable(
              [
                { header: 'at', value: (e) => e.at },
                { header: 'token', value: (e) => `${e.token} (${e.role})` },
                { header: 'action', value: (e) => e.action },
                { header: 'target', value: (e) => e.target, shrink: true },
                {
                  header: 'status',
                  value: (e) => (e.status >= 400 ? ctx.colors.red(String(e.status)) : String(e.status)),
                },
                { header: 'from', value: (e) => e.ip },
              ],
              items,
              ctx.width,
            )
          : 'no audit entries\n',
      );
    });
}
