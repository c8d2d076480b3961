import type { components } from '@drover/api-client';
import type { CliContext } from '../context';
import type { Column } from '../output/table';
import { relativeTime } from '../output/time';

export type Batch = components['schemas']['Batch'];

const BAR_WIDTH = 20;

/** A progress bar of `width` cells: settled share filled, parked/canceled share in red. */
export function progressBar(ctx: CliContext, b: Batch, width = BAR_WIDTH): string {
  const cells = (n: number) => (b.total === 0 ? 0 : Math.floor((n * width) / b.total));
  const failed = cells(b.parked + b.canceled);
  const done = Math.max(0, cells(b.settled) - failed);
  const rest = Math.max(0, width - done - failed);
  return `${ctx.colors.green('█'.repeat(done))}${ctx.colors.red('█'.repeat(failed))}${ctx.colors.dim('░'.repeat(rest))}`;
}

/** `12/20 settled (3 parked, 1 canceled)`. */
export function progressText(b: Batch): string {
  const failed = [b.parked && `${b.parked} parked`, b.canceled && `${b.canceled} canceled`].filter(Boolean);
  return `${b.settled}/${b.total} settled` + (failed.length ? ` (${failed.join(', ')})` : '');
}

export function batchColumns(ctx: CliContext): Column<Batch>[] {
  const now = ctx.io.now();
  return [
    { header: 'BATCH', value: (b) => b.id },
    { header: 'STATUS', value: (b) => b.status },
    { header: 'PROGRESS', value: (b) => `${progressBar(ctx, b, 10)} ${b.percent}%` },
    { header: 'SETTLED', value: (b) => `${b.settled}/${b.total}`, right: true },
    { header: 'PARKED', value: (b) => String(b.parked), right: true },
    { header: 'CANCELED', value: (b) => String(b.canceled), right: true },
    { header: 'CREATED', value: (b) => relativeTime(b.createdAt, now) },
    { header: 'BY', value: (b) => b.createdBy ?? '-', shrink: true },
  ];
}

export function batchFields(ctx: CliContext, b: Batch): [string, string][] {
  const now = ctx.io.now();
  return [
    ['id', b.id],
    ['status', b.status],
    ['progress', `${progressBar(ctx, b)} ${b.percent}%  ${progressText(b)}`],
    ['succeeded', String(b.succeeded)],
    ['created', `${relativeTime(b.createdAt, now)} by ${b.createdBy ?? '-'}`],
    ['completed', relativeTime(b.completedAt, now)],
    ...b.callbacks.map((cb): [string, string] => [
      `on ${cb.on}`,
      `${cb.jobType} on ${cb.queue}` + (cb.runId ? ` → run ${cb.runId}` : ''),
    ]),
  ];
}
