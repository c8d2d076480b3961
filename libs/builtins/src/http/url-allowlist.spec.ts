import { isLoopbackHost, UrlAllowlist, type UrlDecision } from './url-allowlist';

const allowed = (d: UrlDecision) => d.allowed;

describe('UrlAllowlist', () => {
  it('allows only loopback hosts when DROVER_HTTP_ALLOW is unset', () => {
    const allow = new UrlAllowlist(undefined);
    for (const ok of ['http://127.0.0.1:8080/x', 'https://localhost/', 'http://[::1]:3000/', 'http://127.255.0.9/']) {
      expect(allow.check(new URL(ok))).toEqual({ allowed: true, naming: { by: 'default' } });
    }
    for (const no of ['http://10.0.0.1/', 'http://example.com/', 'http://128.0.0.1/', 'ftp://127.0.0.1/']) {
      expect(allowed(allow.check(new URL(no)))).toBe(false);
    }
    expect(allow.check(new URL('http://10.0.0.1/hook'))).toEqual({
      allowed: false,
      reason: 'http://10.0.0.1/hook is not allowed: loopback only (DROVER_HTTP_ALLOW is unset)',
    });
  });

  it('matches entries by scheme, host and port as WHATWG URL normalises them', () => {
    const allow = new UrlAllowlist([
      'http://127.0.0.1:8080/hooks/',
      'https://hooks.example.com',
      'https://bücher.example/',
    ]);
    const yes = [
      'http://127.0.0.1:8080/hooks/a?x=1',
      'https://hooks.example.com/any',
      'https://HOOKS.Example.COM:443/any',
      'https://xn--bcher-kva.example/x',
      'https://BÜCHER.example/x',
      'http://0x7f.0.0.1:8080/hooks/',
      'http://2130706433:8080/hooks/',
    ];
    const no = [
      'http://127.0.0.1:8080/other',
      'http://127.0.0.1:8081/hooks/',
      'http://127.0.0.1/hooks/',
      'https://hooks.example.com.evil.example/',
      'https://hooks.example.com./any',
      'https://hooks.example.com:8443/any',
      'http://hooks.example.com/',
      // Credentials in a URL are never sent.
      'https://user:pw@hooks.example.com/',
    ];
    for (const u of yes) expect([u, allowed(allow.check(new URL(u)))]).toEqual([u, true]);
    for (const u of no) expect([u, allowed(allow.check(new URL(u)))]).toEqual([u, false]);
  });

  it('matches paths by whole segments after normalising the encoding, and refuses paths that could escape', () => {
    const allow = new UrlAllowlist(['http://127.0.0.1:9000/allowed']);
    const yes = ['/allowed', '/allowed/', '/allowed/x', '/%61llowed/x', '/allowed/x/../y', '/x/../allowed/y'];
    const no = [
      '/allowed-admin',
      '/allowedadmin',
      '/allowed%2F..%2Fadmin',
      '/allowed%2f..%2fadmin',
      '/allowed/%2e%2e/admin',
      '/allowed/../admin',
      '/allowed%5C..%5Cadmin',
      '/allowed/x%2F..%2F..%2Fadmin',
      '/allowed/%2e%2e%2fadmin',
      '/allowed/..;/admin',
      '/allowed/%252e%252e/admin',
      '/allowed%252F..%252Fadmin',
      '/admin',
    ];
    for (const p of yes) expect([p, allowed(allow.check(new URL(`http://127.0.0.1:9000${p}`)))]).toEqual([p, true]);
    for (const p of no) expect([p, allowed(allow.check(new URL(`http://127.0.0.1:9000${p}`)))]).toEqual([p, false]);
    expect(allow.check(new URL('http://127.0.0.1:9000/allowed%2F..%2Fadmin'))).toEqual({
      allowed: false,
      reason:
        'http://127.0.0.1:9000/allowed%2F..%2Fadmin is not allowed: its path could be read as another path (segment "allowed%2F..%2Fadmin" encodes a "/" or "\\")',
    });
  });

  it('matches an entry query as the whole query or its leading parameters', () => {
    const allow = new UrlAllowlist(['http://127.0.0.1:9000/q?team=a']);
    expect(allowed(allow.check(new URL('http://127.0.0.1:9000/q?team=a')))).toBe(true);
    expect(allowed(allow.check(new URL('http://127.0.0.1:9000/q?team=a&x=1')))).toBe(true);
    expect(allowed(allow.check(new URL('http://127.0.0.1:9000/q?team=ab')))).toBe(false);
    expect(allowed(allow.check(new URL('http://127.0.0.1:9000/q')))).toBe(false);
  });

  it('says how the host was named: by address, by name, or by localhost', () => {
    const allow = new UrlAllowlist([
      'http://10.0.0.5:8080/',
      'http://[fd00:ec2::254]/',
      'http://backup.internal/',
      'http://localhost:3000/',
    ]);
    const naming = (u: string) => {
      const d = allow.check(new URL(u));
      return d.allowed ? d.naming : d.reason;
    };
    expect(naming('http://10.0.0.5:8080/x')).toEqual({ by: 'address' });
    expect(naming('http://[fd00:ec2::254]/latest')).toEqual({ by: 'address' });
    expect(naming('http://backup.internal/run')).toEqual({ by: 'name', loopbackName: false });
    expect(naming('http://localhost:3000/')).toEqual({ by: 'name', loopbackName: true });
  });

  it('refuses an entry whose own path could be read as another path, naming the variable', () => {
    expect(() => new UrlAllowlist(['http://127.0.0.1/a%2F..%2Fb'])).toThrow(
      /^DROVER_HTTP_ALLOW: "http:\/\/127.0.0.1\/a%2F..%2Fb": segment/,
    );
  });

  it('knows what loopback is', () => {
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('127.1.2.300')).toBe(false);
    expect(isLoopbackHost('localhost.example.com')).toBe(false);
  });
});
