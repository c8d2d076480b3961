import type { CliIo } from '../io';

const ESC = '\u001b[';
export const HIDE_CURSOR = `${ESC}?25l`;
export const SHOW_CURSOR = `${ESC}?25h`;
// eslint-disable-next-line no-control-regex -- escape sequences are what it removes
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** `text` cut to `width` visible characters with an ellipsis (a cut row loses its colours). */
export function fitRow(text: string, width: number): string {
  const plain = text.replace(ANSI, '');
  return plain.length <= width ? text : `${plain.slice(0, Math.max(0, width - 1))}…`;
}

/**
 * A few rows a live command redraws in place on a terminal: each draw moves the cursor back to
 * the block's first row, erases to the end of the screen and writes the new rows, so the screen
 * shows the latest state once instead of a scroll of old ones. The cursor stays at the end of the
 * last row (a Ctrl-C's `^C` and the shell's prompt then start below the block) and is hidden
 * while the block is live; `end` shows it again. Every row is cut to the terminal's width: a
 * wrapped row would move the block's top out of the cursor's reach.
 */
export class LiveBlock {
  private drawn = 0;

  constructor(private readonly io: Pick<CliIo, 'out' | 'columns'>) {}

  draw(rows: readonly string[]): void {
    const width = (this.io.columns ?? 80) - 1;
    const back = this.drawn === 0 ? HIDE_CURSOR : `\r${this.drawn > 1 ? `${ESC}${this.drawn - 1}A` : ''}${ESC}J`;
    this.io.out(back + rows.map((r) => fitRow(r, width)).join('\n'));
    this.drawn = rows.length;
  }

  /** Leaves the last drawing on screen, the cursor on the row below it, visible. */
  end(): void {
    if (this.drawn > 0) this.io.out(`\n${SHOW_CURSOR}`);
    this.drawn = 0;
  }
}
