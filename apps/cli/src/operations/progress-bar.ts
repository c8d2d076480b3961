import type { components } from '@drover/api-client';
import type { Palette } from '../output/color';

export type Operation = components['schemas']['Operation'];

/** `[#######.......]  45/100  replayed 45 · skipped 0 · failed 0` sized to `width`. */
export function progressLine(op: Operation, c: Palette, width = 80): string {
  const done = op.done + op.skipped + op.failed;
  const total = Math.max(op.matched, done);
  const counts =
    `${done}/${total}  ${op.kind === 'replay' ? 'replayed' : 'purged'} ${op.done}` +
    ` · skipped ${op.skipped}` +
    ` · failed ${op.failed > 0 ? c.red(String(op.failed)) : '0'}`;
  const barWidth = Math.max(10, Math.min(40, width - counts.length - 6));
  const filled = total === 0 ? barWidth : Math.round((done / total) * barWidth);
  return `[${c.green('#'.repeat(filled))}${'.'.repeat(barWidth - filled)}]  ${counts}`;
}
