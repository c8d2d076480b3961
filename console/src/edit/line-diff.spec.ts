import { describe, expect, it } from '@jest/globals';
import { changed, lineDiff } from './line-diff';

const show = (before: string, after: string) =>
  lineDiff(before, after).map((l) => `${{ same: ' ', del: '-', add: '+' }[l.kind]}${l.text}`);

describe('lineDiff', () => {
  it('keeps the common lines and marks a changed line as removed then added', () => {
    expect(show('a\nb\nc', 'a\nB\nc')).toEqual([' a', '-b', '+B', ' c']);
  });

  it('finds insertions and deletions anywhere, and nothing in equal texts', () => {
    expect(show('a\nc', 'a\nb\nc\nd')).toEqual([' a', '+b', ' c', '+d']);
    expect(show('x\na\nb', 'a')).toEqual(['-x', ' a', '-b']);
    expect(changed(lineDiff('a\nb', 'a\nb'))).toBe(false);
    expect(changed(lineDiff('a', 'a\n'))).toBe(true);
  });

  it('diffs from and to an empty text', () => {
    expect(show('', 'a\nb')).toEqual(['+a', '+b']);
    expect(show('a', '')).toEqual(['-a']);
    expect(show('', '')).toEqual([]);
  });

  it('reads back both texts: the kept and removed lines are the old one, the kept and added the new', () => {
    const before = JSON.stringify({ name: 'n', trigger: { kind: 'cron', cron: '0 * * * *' }, queue: 'q' }, null, 2);
    const after = JSON.stringify(
      { name: 'n', trigger: { kind: 'interval', everyMs: 60000 }, queue: 'q', payload: { a: 1 } },
      null,
      2,
    );
    const diff = lineDiff(before, after);
    expect(
      diff
        .filter((l) => l.kind !== 'add')
        .map((l) => l.text)
        .join('\n'),
    ).toBe(before);
    expect(
      diff
        .filter((l) => l.kind !== 'del')
        .map((l) => l.text)
        .join('\n'),
    ).toBe(after);
    expect(diff.filter((l) => l.kind === 'same').length).toBe(5); // {, name, trigger, }, and the last }
  });
});
