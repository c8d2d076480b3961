import { palette } from './color';
import { renderFields, renderTable } from './table';
import { terminalSafe, terminalSafeCell } from './terminal-safe';

describe('terminalSafe', () => {
  it('shows newlines, ESC, DEL, C1 and bidi overrides as escapes', () => {
    expect(terminalSafe('a\nb\r\tc')).toBe('a\\nb\\r\\tc');
    expect(terminalSafe('\u001b]0;owned\u0007\u001b[2J')).toBe('\\x1b]0;owned\\x07\\x1b[2J');
    expect(terminalSafe('\u007f\u009b\u202e\u2028')).toBe('\\x7f\\x9b\\u202e\\u2028');
    expect(terminalSafe('plain é ✓ \\n')).toBe('plain é ✓ \\n');
  });

  it('keeps the palette colours of a cell and escapes everything else in it', () => {
    const red = palette(true).red;
    expect(terminalSafeCell(red('4\n01'))).toBe('\u001b[31m4\\n01\u001b[39m');
    expect(terminalSafeCell('x\u001b[8mhidden\u001b[1A')).toBe('x\\x1b[8mhidden\\x1b[1A');
  });

  it('keeps a table one line per row whatever its cells hold', () => {
    const rows = [{ t: 'name=a\nFORGED 200 admin' }, { t: 'b\u001b[2K' }];
    const out = renderTable([{ header: 't', value: (r: { t: string }) => r.t }], rows);
    expect(out.trimEnd().split('\n')).toEqual(['T', 'name=a\\nFORGED 200 admin', 'b\\x1b[2K']);
    expect(renderFields([['target', 'x\ny']])).toBe('target  x\\ny\n');
  });
});
