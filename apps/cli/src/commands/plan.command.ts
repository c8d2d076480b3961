import type { Command } from 'commander';
import { ok, type components } from '@drover/api-client';
import { formatInstant } from '@drover/core/human-time';
import { parseCount } from '../args';
import type { CliContext } from '../context';
import { renderTable } from '../output/table';

type Plan = components['schemas']['Plan'];

function renderPlan(ctx: CliContext, p: Plan): string {
  const c = ctx.colors;
  const out: string[] = [];
  const section = (title: string, body: string) => out.push(`${c.bold(title)}\n${body}`);
  if (p.fires.length)
    section(
      'fires due now',
      renderTable(
        [
          { header: 'run', value: (f) => f.runId },
          { header: 'routine', value: (f) => f.routine, shrink: true },
          { header: 'slot', value: (f) => formatInstant(f.slot) },
          { header: 'source', value: (f) => f.source },
          { header: 'queue', value: (f) => f.queue },
          { header: 'replaces', value: (f) => f.cancel.join(' '), shrink: true },
        ],
        p.fires,
        ctx.width,
      ),
    );
  if (p.skips.length)
    section(
      'skipped slots',
      renderTable(
        [
          { header: 'routine', value: (s) => s.routine, shrink: true },
          { header: 'slot', value: (s) => formatInstant(s.slot) },
          { header: 'reason', value: (s) => s.reason },
        ],
        p.skips,
        ctx.width,
      ),
    );
  if (p.starts.length)
    section(
      'starts next',
      renderTable(
        [
          { header: 'run', value: (s) => s.runId },
          { header: 'queue', value: (s) => s.queue },
          { header: 'routine', value: (s) => s.routine ?? '' },
        ],
        p.starts,
        ctx.width,
      ),
    );
  if (p.waiting.length)
    section(
      'waiting',
      renderTable(
        [
          {
            header: 'what',
            value: (w) =>
              w.subject.kind === 'routine' ? `routine ${w.subject.name}` : `run ${w.subject.id} (${w.subject.queue})`,
            shrink: true,
          },
          { header: 'reason', value: (w) => c.yellow(w.reason) },
          { header: 'until', value: (w) => (w.until ? ctx.ago(w.until) : '') },
          { header: 'detail', value: (w) => w.detail ?? '', shrink: true },
        ],
        p.waiting,
        ctx.width,
      ),
    );
  if (p.upcoming.length)
    section(
      'upcoming fires',
      renderTable(
        [
          { header: 'routine', value: (u) => u.routine, shrink: true },
          { header: 'at', value: (u) => formatInstant(u.at) },
          { header: 'in', value: (u) => ctx.ago(u.at) },
          // A jittered routine's run starts after its slot (jitterMs).
          ...(p.upcoming.some((u) => u.start)
            ? [{ header: 'starts', value: (u: (typeof p.upcoming)[number]) => formatInstant(u.start ?? u.at) }]
            : []),
        ],
        p.upcoming,
        ctx.width,
      ),
    );
  if (p.truncated.length) out.push(c.dim(`(queues with more waiting runs than read: ${p.truncated.join(', ')})\n`));
  return out.length ? out.join('\n') : 'nothing due, nothing waiting\n';
}

export function registerPlan(program: Command, ctx: CliContext): void {
  program
    .command('plan')
    .description('what runs next and what waits, with the reason (read-only)')
    .option('--runs-per-queue <n>', 'waiting runs read per queue')
    .addHelpText(
      'after',
      '\nExamples:\n  drover plan\n  drover -o json plan | jq \'.waiting[] | select(.reason == "no-workers")\'',
    )
    .action(async (o: { runsPerQueue?: string }) => {
      const query = o.runsPerQueue ? { runs_per_queue: parseCount(o.runsPerQueue, '--runs-per-queue', 1000) } : {};
      const plan = await ok(ctx.api.GET('/api/v1/plan', { params: { query } }));
      ctx.emit(plan, () => renderPlan(ctx, plan));
    });
}
