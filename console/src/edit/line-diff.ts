/** One line of a diff: kept, removed from the old text, or added by the new one. */
export interface DiffLine {
  kind: 'same' | 'del' | 'add';
  text: string;
}

/** Past this many lines on both sides, the diff lists old then new instead of computing a table. */
const MAX_CELLS = 4_000_000;

/**
 * The line diff of two texts: the longest common subsequence of their lines, kept; the rest
 * removed (old) before added (new) at each change. Small enough for the console (a routine's
 * definition is a few dozen lines) and needs no package.
 */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  if (a.length * b.length > MAX_CELLS) {
    return [...a.map((text) => ({ kind: 'del' as const, text })), ...b.map((text) => ({ kind: 'add' as const, text }))];
  }
  // lcs[i][j]: the common lines of a[i..] and b[j..], filled from the end.
  const w = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * w + j] =
        a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i++]! });
      j++;
    } else if (j === b.length || (i < a.length && lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) {
      out.push({ kind: 'del', text: a[i++]! });
    } else {
      out.push({ kind: 'add', text: b[j++]! });
    }
  }
  return out;
}

/** True when the diff changes anything. */
export const changed = (diff: DiffLine[]) => diff.some((l) => l.kind !== 'same');
