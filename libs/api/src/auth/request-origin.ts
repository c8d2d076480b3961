import { isIP } from 'node:net';

/** A Host header's name (lower case, no trailing dot; IPv6 in brackets) and port, or undefined. */
export interface HostHeader {
  name: string;
  /** `host[:port]` as a URL of `scheme` writes it (the scheme's default port omitted). */
  hostFor(scheme: 'http:' | 'https:'): string;
}

/** Only what a Host header may hold: a name or address and a port, nothing a URL parser would reinterpret. */
const HOST_CHARS = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

/** Parses a Host header; undefined when it is missing or not a plain `host[:port]`. */
export function parseHostHeader(raw: string | undefined): HostHeader | undefined {
  if (raw === undefined || !HOST_CHARS.test(raw)) return undefined;
  let url: URL;
  try {
    url = new URL(`http://${raw}`);
  } catch {
    return undefined;
  }
  // The URL parser normalises what browsers normalise (127.1 → 127.0.0.1, upper case → lower case).
  const name = url.hostname.replace(/\.$/, '');
  const port = url.port || (/:(\d+)$/.exec(raw)?.[1] ?? '');
  return {
    name,
    hostFor: (scheme) => new URL(`${scheme}//${name}${port ? `:${port}` : ''}`).host,
  };
}

/**
 * True for names that only ever reach this machine: `localhost` and `*.localhost` (browsers resolve
 * them to loopback themselves, RFC 6761), 127.0.0.0/8 and [::1]. A DNS rebinding page has a name of
 * its own, which is none of these.
 */
export function isLoopbackHostName(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  return name === '[::1]';
}

/**
 * Whether a browser's `Origin` is the api's own: the same scheme-relative host and port as the Host
 * the request was sent to, or a name of `allowedHosts`. `secure` (the api knows the request came
 * over TLS, itself or through a trusted proxy) also requires an https origin.
 */
export function isOwnOrigin(
  origin: string,
  host: HostHeader | undefined,
  opts: { allowedHosts: readonly string[]; secure: boolean },
): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (sandboxed frames, file: pages) and garbage are nobody's own
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (opts.secure && url.protocol !== 'https:') return false;
  if (opts.allowedHosts.includes(url.hostname.replace(/\.$/, ''))) return true;
  return host !== undefined && host.hostFor(url.protocol) === url.host;
}
