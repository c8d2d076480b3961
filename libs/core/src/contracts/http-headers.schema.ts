import { z } from 'zod';

/**
 * Headers the HTTP client owns because they frame the message or the connection: a payload's
 * `Content-Length` or `Transfer-Encoding` could split one request into two on the receiver's
 * side, and `Host` could address another virtual host than the allowlisted URL names.
 */
const TRANSPORT_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

/** The headers Drover sets on every `http.request` (lower case); a payload's of the same name is replaced. */
export const DROVER_HEADER_NAMES: ReadonlySet<string> = new Set([
  'x-drover-run-id',
  'x-drover-routine',
  'x-drover-scheduled-for',
  'x-drover-attempt',
  'x-drover-key',
]);

/** RFC 9110 §5.1: a field name is a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 9110 §5.5: HTAB, SP, visible ASCII and obs-text; above U+00FF fetch cannot encode it. */
const FORBIDDEN_IN_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

function describeChar(ch: string): string {
  const code = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  const names: Record<string, string> = { '\r': 'CR', '\n': 'LF', '\0': 'NUL' };
  return names[ch] ? `${names[ch]} (${code})` : code;
}

/**
 * What a payload header may do with Drover's names: `replace` (http.request) drops a payload header
 * named like one of Drover's own and sends Drover's value; `refuse` (http.candidates args) refuses
 * it. Either way any other `X-Drover-*` name is refused, so a receiver can trust every `X-Drover-*`
 * header it gets to come from Drover.
 */
export type DroverHeaderRule = 'replace' | 'refuse';

/** Why a payload header cannot be sent as given; undefined when it can. */
function headerProblem(
  name: string,
  value: string,
  firstSpelling: string | undefined,
  drover: DroverHeaderRule,
): string | undefined {
  if (!TOKEN.test(name)) return "is not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)";
  const lower = name.toLowerCase();
  // Replaced by Drover's own value whatever it holds (see requestHeaders).
  if (drover === 'replace' && DROVER_HEADER_NAMES.has(lower)) return undefined;
  if (lower.startsWith('x-drover-')) return 'is in the X-Drover- namespace, which only Drover sets';
  if (TRANSPORT_HEADERS.has(lower)) return 'is set by the HTTP client from the URL and body; a payload may not set it';
  if (firstSpelling !== undefined) {
    return `is given twice (also as "${firstSpelling}"); header names are case-insensitive`;
  }
  const bad = FORBIDDEN_IN_VALUE.exec(value);
  if (bad) return `value holds ${describeChar(bad[0])} at index ${bad.index}, which a header value may not carry`;
  return undefined;
}

/**
 * The `headers` of an `http.request` payload. Refused (the run is parked as an invalid payload,
 * naming the header) rather than left to fetch, which would throw at send time — a retry
 * cannot fix the payload — or, for framing headers, send something other than what was asked.
 */
export const payloadHeadersSchema = headersSchema('replace');

/** The `headers` of `http.candidates` args: the same rules, and no `X-Drover-*` at all. */
export const candidateHeadersSchema = headersSchema('refuse');

function headersSchema(drover: DroverHeaderRule) {
  return z.record(z.string(), z.string()).superRefine((headers, ctx) => {
    const seen = new Map<string, string>();
    for (const [name, value] of Object.entries(headers)) {
      const problem = headerProblem(name, value, seen.get(name.toLowerCase()), drover);
      if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
      if (!seen.has(name.toLowerCase())) seen.set(name.toLowerCase(), name);
    }
  });
}
