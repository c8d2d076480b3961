import { screen } from '../testing/screen';
import { LiveBlock, SHOW_CURSOR, fitRow } from './live-block';

describe('LiveBlock', () => {
  it('redraws its rows in place: the screen shows the latest rows once', () => {
    let out = 'before\n';
    const block = new LiveBlock({ out: (t) => void (out += t), columns: 40 });
    block.draw(['running  attempt 1/3', 'progress {"percent":10}']);
    block.draw(['running  attempt 1/3', 'progress {"percent":60}']);
    block.draw(['succeeded  attempt 1/3']);
    block.end();
    out += 'after';
    expect(screen(out)).toEqual(['before', 'succeeded  attempt 1/3', 'after']);
    expect(out.endsWith(`\n${SHOW_CURSOR}after`)).toBe(true); // the cursor shown again
  });

  it('cuts a row to the terminal width, so it never wraps', () => {
    expect(fitRow('x'.repeat(50), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(fitRow('\u001b[32mok\u001b[39m', 10)).toBe('\u001b[32mok\u001b[39m'); // colours are not counted
  });
});
