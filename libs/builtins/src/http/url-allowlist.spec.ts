import { isLoopbackHost, UrlAllowlist } from './url-allowlist';

describe('UrlAllowlist', () => {
  it('allows only loopback hosts when DROVER_HTTP_ALLOW is unset', () => {
    const allow = new UrlAllowlist(undefined);
    for (const ok of ['http://127.0.0.1:8080/x', 'https://localhost/', 'http://[::1]:3000/', 'http://127.255.0.9/']) {
      expect(allow.allows(new URL(ok))).toBe(true);
    }
    for (const no of ['http://10.0.0.1/', 'http://example.com/', 'http://128.0.0.1/', 'ftp://127.0.0.1/']) {
      expect(allow.allows(new URL(no))).toBe(false);
    }
    expect(allow.describe()).toMatch(/loopback only/);
  });

  it('matches prefixes by scheme, host, port and path, not by raw text', () => {
    const allow = new UrlAllowlist(['http://127.0.0.1:8080/hooks/', 'https://hooks.example.com']);
    expect(allow.allows(new URL('http://127.0.0.1:8080/hooks/a?x=1'))).toBe(true);
    expect(allow.allows(new URL('https://hooks.example.com/any'))).toBe(true);
    expect(allow.allows(new URL('http://127.0.0.1:8080/other'))).toBe(false);
    expect(allow.allows(new URL('http://127.0.0.1:8081/hooks/'))).toBe(false);
    expect(allow.allows(new URL('https://hooks.example.com.evil.example/'))).toBe(false);
    expect(allow.allows(new URL('http://hooks.example.com/'))).toBe(false);
    // Credentials in a URL are never sent.
    expect(allow.allows(new URL('https://user:pw@hooks.example.com/'))).toBe(false);
  });

  it('knows what loopback is', () => {
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('127.1.2.300')).toBe(false);
    expect(isLoopbackHost('localhost.example.com')).toBe(false);
  });
});
