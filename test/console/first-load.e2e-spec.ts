import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** What every console visit pays for, gzip: the page and the scripts and styles it names. */
const FIRST_LOAD_LIMIT = 60 * 1024;

/**
 * The built console's first load (`npm run build`): index.html plus every asset it references,
 * gzipped as a server would (-9). Pages loaded on first visit (their own chunks) are not in it.
 */
describe('web console first load', () => {
  it(`stays under ${FIRST_LOAD_LIMIT / 1024} KB gzip`, () => {
    const dir = join(__dirname, '..', '..', 'dist', 'console');
    const html = readFileSync(join(dir, 'index.html'));
    const assets = [...html.toString().matchAll(/(?:src|href)="\/ui\/(assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    const sizes = [html, ...assets.map((a) => readFileSync(join(dir, a)))].map((b) => gzipSync(b, { level: 9 }).length);
    const total = sizes.reduce((a, b) => a + b, 0);
    expect({ total, under: total < FIRST_LOAD_LIMIT }).toEqual({ total, under: true });
  });
});
