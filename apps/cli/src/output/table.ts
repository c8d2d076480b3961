import { visibleLength } from './color';
import { terminalSafeCell } from './terminal-safe';

export interface Column<T> {
  header: string;
  value(row: T): string;
  /** Right-aligned (numbers). */
  right?: boolean;
  /** May be cut to fit the terminal; the widest such column gives way first. */
  shrink?: boolean;
}

const GAP = '  ';
const MIN_SHRUNK = 8;

function cut(s: string, width: number): string {
  if (visibleLength(s) <= width) return s;
  // Cells that are cut lose their colour: cutting through an escape would garble the line.
  // eslint-disable-next-line no-control-regex -- ANSI escapes
  const plain = s.replace(/\u001b\[[0-9;]*m/g, '');
  return width <= 1 ? plain.slice(0, width) : `${plain.slice(0, width - 1)}…`;
}

function pad(s: string, width: number, right: boolean): string {
  const fill = ' '.repeat(Math.max(0, width - visibleLength(s)));
  return right ? fill + s : s + fill;
}

/**
 * Rows as an aligned table with an upper-case header. With `maxWidth` (a terminal's columns),
 * shrinkable columns are cut with `…` until the table fits; otherwise nothing is cut, so piping
 * a table through `grep` or `less -S` loses nothing.
 */
export function renderTable<T>(columns: Column<T>[], rows: readonly T[], maxWidth?: number): string {
  // Cells hold server text: a newline or an escape in it must not forge a row or reach the terminal.
  const cells = rows.map((r) => columns.map((c) => terminalSafeCell(c.value(r) || '-')));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => visibleLength(row[i]!))));
  if (maxWidth !== undefined) {
    const total = () => widths.reduce((a, b) => a + b, 0) + GAP.length * (columns.length - 1);
    while (total() > maxWidth) {
      let widest = -1;
      columns.forEach((c, i) => {
        if (c.shrink && widths[i]! > MIN_SHRUNK && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
      });
      if (widest < 0) break;
      widths[widest] = Math.max(MIN_SHRUNK, widths[widest]! - (total() - maxWidth));
    }
  }
  const line = (values: string[]) =>
    values
      .map((v, i) => pad(cut(v, widths[i]!), widths[i]!, columns[i]!.right === true))
      .join(GAP)
      .trimEnd();
  return [line(columns.map((c) => c.header.toUpperCase())), ...cells.map(line)].join('\n') + '\n';
}

/** `key  value` lines for one object, keys aligned. */
export function renderFields(fields: [string, string][]): string {
  const width = Math.max(...fields.map(([k]) => k.length));
  return fields.map(([k, v]) => `${k.padEnd(width)}  ${terminalSafeCell(v || '-')}`).join('\n') + '\n';
}
