/**
 * Which URLs the `http.request` handler may call (DROVER_HTTP_ALLOW). A prefix matches a URL with
 * the same scheme, host and port whose path starts with the prefix's path — so the prefix
 * `http://127.0.0.1:8080` does not match `http://127.0.0.1:8080.evil.example/`. With no list,
 * only loopback hosts are allowed: 127.0.0.0/8, ::1 and localhost.
 */
export class UrlAllowlist {
  private readonly prefixes: URL[];

  constructor(readonly raw: string[] | undefined) {
    this.prefixes = (raw ?? []).map((p) => new URL(p));
  }

  allows(url: URL): boolean {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    if (url.username || url.password) return false;
    if (!this.raw) return isLoopbackHost(url.hostname);
    return this.prefixes.some(
      (p) =>
        p.protocol === url.protocol &&
        p.hostname === url.hostname &&
        p.port === url.port &&
        url.pathname.startsWith(p.pathname) &&
        (p.search === '' || url.search.startsWith(p.search)),
    );
  }

  describe(): string {
    return this.raw ? `DROVER_HTTP_ALLOW=${this.raw.join(',')}` : 'loopback only (DROVER_HTTP_ALLOW is unset)';
  }
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || host === '[::1]' || host === '::1') return true;
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return !!m && Number(m[1]) === 127 && m.slice(2).every((o) => Number(o) <= 255);
}
