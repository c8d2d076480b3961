import type { components } from '@drover/api-client';
import { visibleLength, type Palette } from '../output/color';

export type Operation = components['schemas']['Operation'];

/**
 * `[#######.......]  45/100  replayed 44 · skipped 1 · failed 0` sized to fit in `width`. The api's `done`
 * counts every handled run, skipped and failed included (docs/api/queues.md), so it is the bar's
 * numerator as is, and what was replayed (purged) is what remains of it.
 */
export function progressLine(op: Operation, c: Palette, width = 80): string {
  const total = Math.max(op.matched, op.done);
  const counts =
    `${op.done}/${total}  ${op.kind === 'replay' ? 'replayed' : 'purged'} ${changedBy(op)}` +
    ` · skipped ${op.skipped}` +
    ` · failed ${op.failed > 0 ? c.red(String(op.failed)) : '0'}`;
  const room = width - visibleLength(counts) - 6;
  // Too narrow for a bar: the counts alone, since a line that wraps cannot be redrawn in place.
  if (room < 10) return counts;
  const barWidth = Math.min(40, room);
  const filled = total === 0 ? barWidth : Math.round((op.done / total) * barWidth);
  return `[${c.green('#'.repeat(filled))}${'.'.repeat(barWidth - filled)}]  ${counts}`;
}

/** The runs the operation really replayed (or purged): handled, minus skipped and failed. */
export function changedBy(op: Pick<Operation, 'done' | 'skipped' | 'failed'>): number {
  return Math.max(0, op.done - op.skipped - op.failed);
}
