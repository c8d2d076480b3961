/**
 * URL paths as whole segments, for allow-list matching (DROVER_HTTP_ALLOW). The path comes from
 * WHATWG `URL`, which has already removed `.`/`..` segments (also spelt `%2e`) and turned `\` into
 * `/`. What is left that a receiver (or a proxy in front of it) could read as another path is
 * refused here rather than compared as text: an encoded `/` or `\` inside a segment
 * (`/allowed%2F..%2Fadmin`), a segment that decodes to `.` or `..` (also after `;` parameters, which
 * Tomcat-style servers strip: `/allowed/..;/admin`), an encoded NUL — at any depth of encoding
 * (`%252F` is `%2F` to a receiver that decodes twice).
 */
export type PathReading = { segments: string[] } | { problem: string };

const UNRESERVED = /[A-Za-z0-9\-._~]/;
/** Decoding rounds looked through for a hidden `/`, `\`, `..` or NUL (`%25252F` is three). */
const MAX_DEPTH = 4;

/** One segment in a canonical spelling: unreserved characters decoded, other escapes upper-case. */
function canonical(segment: string): string {
  return segment.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

/** One round of percent-decoding, byte by byte (enough to see ASCII `/`, `\`, `.`, `;`, NUL). */
function decodeOnce(s: string): string {
  return s.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function isDotSegment(s: string): boolean {
  const bare = s.split(';')[0];
  return bare === '.' || bare === '..';
}

function segmentProblem(raw: string): string | undefined {
  let s = raw;
  for (let depth = 0; depth <= MAX_DEPTH; depth++) {
    if (depth > 0 && /[/\\]/.test(s)) return `segment "${raw}" encodes a "/" or "\\"`;
    if (s.includes('\0')) return `segment "${raw}" encodes a NUL`;
    if (isDotSegment(s)) return `segment "${raw}" is a "." or ".." segment`;
    const next = decodeOnce(s);
    if (next === s) return undefined;
    s = next;
  }
  return `segment "${raw}" is percent-encoded more than ${MAX_DEPTH} times`;
}

/** The segments of a WHATWG `pathname` (`/a/b/` → `a`, `b`, ``), or why it is refused. */
export function readPath(pathname: string): PathReading {
  const raw = pathname.startsWith('/') ? pathname.slice(1) : pathname;
  const parts = raw.split('/');
  for (const part of parts) {
    const problem = segmentProblem(part);
    if (problem) return { problem };
  }
  return { segments: parts.map(canonical) };
}

/**
 * True when `path` starts with every segment of `prefix`, whole: `/allowed` covers `/allowed`,
 * `/allowed/` and `/allowed/x`, never `/allowed-admin`. A prefix's trailing `/` adds nothing
 * (`/hooks/` covers `/hooks` too), and `/` covers every path.
 */
export function segmentsStartWith(path: string[], prefix: string[]): boolean {
  const wanted = prefix.at(-1) === '' ? prefix.slice(0, -1) : prefix;
  return wanted.length <= path.length && wanted.every((seg, i) => path[i] === seg);
}
