import { isIP } from 'node:net';
import { ConfigError } from '@drover/config';
import type { HostNaming } from './address-policy';
import { readPath, segmentsStartWith } from './path-segments';

interface Entry {
  url: URL;
  segments: string[];
}

export type UrlDecision = { allowed: true; naming: HostNaming } | { allowed: false; reason: string };

/**
 * Which URLs `http.request` and `http.candidates` may call (DROVER_HTTP_ALLOW). An entry matches a
 * URL with the same scheme, host and port — as WHATWG `URL` normalises them: lower case, punycode,
 * default ports dropped, `0x7f.1` read as `127.0.0.1` — whose path starts with the entry's path by
 * whole segments after normalising percent-encoding (see path-segments), and whose query, when the
 * entry has one, is that query or starts with it followed by `&`. So `http://127.0.0.1:8080/hooks`
 * matches neither `http://127.0.0.1:8080.evil.example/` nor `/hooks-admin` nor `/hooks%2F..%2Fadmin`.
 * With no list, only loopback hosts are allowed: 127.0.0.0/8, ::1 and localhost. Which addresses
 * the host may then connect to is the {@link HostNaming} this returns (see address-policy).
 */
export class UrlAllowlist {
  private readonly entries: Entry[];

  constructor(readonly raw: string[] | undefined) {
    this.entries = (raw ?? []).map((p) => {
      const url = new URL(p);
      const path = readPath(url.pathname);
      if ('problem' in path) throw new ConfigError('DROVER_HTTP_ALLOW', `"${p}": ${path.problem}`);
      return { url, segments: path.segments };
    });
  }

  check(url: URL): UrlDecision {
    const refuse = (why: string): UrlDecision => ({
      allowed: false,
      reason: `${url.origin}${url.pathname} is not allowed: ${why}`,
    });
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return refuse(`${url.protocol} is not http: or https:`);
    if (url.username || url.password) return refuse('a URL with credentials is never called');
    const path = readPath(url.pathname);
    if ('problem' in path) return refuse(`its path could be read as another path (${path.problem})`);
    if (!this.raw) {
      return isLoopbackHost(url.hostname) ? { allowed: true, naming: { by: 'default' } } : refuse(this.describe());
    }
    const match = this.entries.some(
      ({ url: p, segments }) =>
        p.protocol === url.protocol &&
        p.hostname === url.hostname &&
        p.port === url.port &&
        segmentsStartWith(path.segments, segments) &&
        (p.search === '' || url.search === p.search || url.search.startsWith(`${p.search}&`)),
    );
    if (!match) return refuse(this.describe());
    const naming: HostNaming = isIP(bare(url.hostname))
      ? { by: 'address' }
      : { by: 'name', loopbackName: url.hostname === 'localhost' };
    return { allowed: true, naming };
  }

  describe(): string {
    return this.raw ? `DROVER_HTTP_ALLOW=${this.raw.join(',')}` : 'loopback only (DROVER_HTTP_ALLOW is unset)';
  }
}

/** A URL's hostname without the brackets of an IPv6 address. */
export function bare(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1');
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || host === '[::1]' || host === '::1') return true;
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return !!m && Number(m[1]) === 127 && m.slice(2).every((o) => Number(o) <= 255);
}
