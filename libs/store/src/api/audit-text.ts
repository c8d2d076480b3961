/**
 * Characters that must never reach a log line or a terminal as they are: C0 controls (newline,
 * ESC...), DEL, C1 controls, and the Unicode line separators and bidirectional overrides that
 * reorder or break what a reader sees.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\\]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };

/**
 * `s` with every unsafe character written as a visible escape (`\n`, `\x1b`, `\u202e`) and `\`
 * doubled, so the text stays one line, moves no cursor, and reads back unambiguously: a path
 * holding `%0A` cannot forge a second audit line, nor `%1B` a terminal escape.
 */
export function escapeControls(s: string): string {
  return s.replace(UNSAFE, (c) => {
    const named = NAMED[c];
    if (named) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
