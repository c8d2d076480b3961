/**
 * Control characters (C0 such as newline and ESC, DEL, C1) and the Unicode line separators and
 * bidirectional overrides: in text from a server they could forge lines, move the cursor, retitle
 * the terminal or reorder what is read.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The colour and weight escapes the CLI's own palette writes (see color.ts), and only those. */
// eslint-disable-next-line no-control-regex -- ANSI escapes
const PALETTE_SGR = /\u001b\[(?:1|2|22|31|32|33|36|39)m/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const escapeOne = (c: string): string => {
  const code = c.charCodeAt(0);
  return (
    NAMED[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`)
  );
};

/** `s` (text from a server) with every control character shown as an escape (`\n`, `\x1b`). */
export function terminalSafe(s: string): string {
  return s.replace(UNSAFE, escapeOne);
}

/**
 * A table cell: like {@link terminalSafe}, except that the palette's own colour escapes are kept
 * (a cell is often server text wrapped in a colour). The most a server can slip through is one
 * of those same colour changes: never a line break, a cursor move, a title or a hidden span.
 */
export function terminalSafeCell(s: string): string {
  let out = '';
  let from = 0;
  for (const m of s.matchAll(PALETTE_SGR)) {
    out += terminalSafe(s.slice(from, m.index)) + m[0];
    from = m.index + m[0].length;
  }
  return out + terminalSafe(s.slice(from));
}
