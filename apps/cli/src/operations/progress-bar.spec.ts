import { palette, visibleLength } from '../output/color';
import { changedBy, progressLine, type Operation } from './progress-bar';

const op = (o: Partial<Operation>): Operation =>
  ({
    id: 'op-1',
    kind: 'replay',
    queue: 'q',
    status: 'running',
    matched: 20,
    done: 0,
    skipped: 0,
    failed: 0,
    ...o,
  }) as Operation;
const plain = palette(false);

/** The bar's filled and empty cells and the text after it. */
function parts(line: string): { filled: number; empty: number; counts: string } {
  const m = /^\[(#*)(\.*)\] {2}(.*)$/.exec(line);
  if (!m) throw new Error(`not a bar: ${line}`);
  return { filled: m[1]!.length, empty: m[2]!.length, counts: m[3]! };
}

describe('progressLine', () => {
  it("takes the api's done as handled runs (skipped and failed included), not adding them twice", () => {
    const half = parts(progressLine(op({ done: 10, skipped: 2, failed: 1 }), plain, 80));
    expect(half.counts).toBe('10/20  replayed 7 · skipped 2 · failed 1');
    expect(half.filled).toBe(half.empty);
    const all = parts(progressLine(op({ done: 20, skipped: 20, status: 'done' }), plain, 80));
    expect(all).toMatchObject({ empty: 0, counts: '20/20  replayed 0 · skipped 20 · failed 0' });
    expect(changedBy({ done: 5, skipped: 1, failed: 1 })).toBe(3);
  });

  it('fits the width it is given (a wrapped line cannot be redrawn in place), colours or not', () => {
    for (const width of [120, 80, 60, 40]) {
      for (const c of [plain, palette(true)]) {
        expect(visibleLength(progressLine(op({ done: 7, failed: 3 }), c, width))).toBeLessThan(width);
      }
    }
    const wide = parts(progressLine(op({ done: 7 }), plain, 120));
    expect(wide.filled + wide.empty).toBe(40); // at most 40 cells, however wide the terminal
    expect(wide.filled).toBe(14);
    expect(progressLine(op({ done: 7 }), plain, 40)).toBe('7/20  replayed 7 · skipped 0 · failed 0');
  });

  it('a purge says purged; an empty match is a full bar', () => {
    const empty = parts(progressLine(op({ kind: 'purge', matched: 0, status: 'done' }), plain, 80));
    expect(empty).toMatchObject({ empty: 0, counts: '0/0  purged 0 · skipped 0 · failed 0' });
    expect(empty.filled).toBeGreaterThanOrEqual(10);
  });
});
