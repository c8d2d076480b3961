/**
 * Authentication hardening against real api processes over HTTP: DNS rebinding and foreign origins in development mode, console sessions re-checked against a
 * tokens file that changes while the api runs, event streams that end with their credentials, the
 * session cookie behind a TLS proxy, the caps on open event streams, and an empty tokens variable.
 */
import { request } from 'node:http';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import type { ApiRole } from '@drover/config';
import { startApp, testRedisUrl, uniquePrefix, waitFor } from '@drover/testing';
import { ApiCluster, expectProblem, type ApiAnswer } from './support/api-cluster';
import { expectStream, SseConnection } from './support/sse';

/** One HTTP request with exactly these headers (fetch will not send a foreign Host). */
function raw(
  api: ApiCluster,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<ApiAnswer> {
  const url = new URL(`${api.url}${path}`);
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers: { ...headers, ...(data !== undefined && { 'content-type': 'application/json' }) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) h.append(k, one);
          }
          const type = h.get('content-type') ?? '';
          resolve({
            status: res.statusCode!,
            headers: h,
            body: type.includes('json') && text ? JSON.parse(text) : text,
            text,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const sha = (t: string) => createHash('sha256').update(t).digest('hex');

describe('development mode: DNS rebinding and foreign origins (real api)', () => {
  let api: ApiCluster;
  let host: string;

  beforeAll(async () => {
    api = await ApiCluster.start('auth-dev', {
      policy: { queues: [{ name: 'default' }] },
      scheduler: false,
      worker: false,
      devMode: true,
      apiEnv: { DROVER_API_ALLOWED_HOSTS: 'drover-dev.internal' },
    });
    await api.cluster.registry.put([{ name: 'default' }]);
    host = `127.0.0.1:${api.api.port}`;
  }, 60_000);

  afterAll(() => api?.close(), 30_000);

  const paused = async () => (await api.call('GET', '/queues/default', { as: 'none' })).body.paused as boolean;

  it('refuses a rebound page (Host and Origin evil.test, CSRF header and all) and leaves the queue running', async () => {
    const evil = { host: 'evil.test:3000', origin: 'http://evil.test:3000', 'x-drover-csrf': '1' };
    const res = expectProblem(await raw(api, 'POST', '/queues/default/pause', evil, {}), 403);
    expect(res.detail).toContain('Host "evil.test:3000" is not one');
    expect(await paused()).toBe(false);
    // Reads too: the page must not see the cluster either.
    expectProblem(await raw(api, 'GET', '/runs', { host: 'evil.test:3000' }), 403);
    expectProblem(await raw(api, 'GET', '/events', { host: 'evil.test' }), 403);
  });

  it("refuses a browser write whose Origin is not the api's own, even with the CSRF header", async () => {
    for (const origin of ['http://evil.test:3000', `http://localhost:${api.api.port + 1}`, 'null']) {
      const res = await raw(api, 'POST', '/queues/default/pause', { host, origin, 'x-drover-csrf': '1' }, {});
      expect([origin, expectProblem(res, 403).detail]).toEqual([origin, expect.stringContaining('own origin')]);
    }
    expect(await paused()).toBe(false);
  });

  it('serves loopback and listed host names, same-origin browser writes, and clients without Origin', async () => {
    const own = { host, origin: `http://${host}`, 'x-drover-csrf': '1' };
    expect((await raw(api, 'POST', '/queues/default/pause', own, {})).status).toBe(200);
    expect(await paused()).toBe(true);
    const listed = {
      host: 'drover-dev.internal:3000',
      origin: 'http://drover-dev.internal:3000',
      'x-drover-csrf': '1',
    };
    expect((await raw(api, 'POST', '/queues/default/resume', listed, {})).status).toBe(200);
    expect(await paused()).toBe(false);
    for (const h of [`localhost:${api.api.port}`, 'console.localhost', `[::1]:${api.api.port}`]) {
      expect([h, (await raw(api, 'GET', '/runs', { host: h })).status]).toEqual([h, 200]);
    }
    expect((await api.call('POST', '/queues/default/pause', { as: 'none', body: {} })).status).toBe(200);
  });
});

describe('console sessions and event streams follow the tokens file (real api)', () => {
  let api: ApiCluster;
  const open: SseConnection[] = [];

  beforeAll(async () => {
    api = await ApiCluster.start('auth-revoke', {
      policy: { queues: [{ name: 'default' }] },
      scheduler: false,
      worker: false,
    });
    await api.cluster.registry.put([{ name: 'default' }]);
  }, 60_000);

  afterAll(async () => {
    open.forEach((s) => s.close());
    await api?.close();
  }, 30_000);

  /** Rewrites the tokens file with these entries (role: token), and waits for the api to reload it. */
  async function writeTokens(entries: { name: string; role: ApiRole; token: string }[]): Promise<void> {
    const before = (api.api.output().match(/reloaded \d+ token/g) ?? []).length;
    const tokens = entries.map((e) => ({ name: e.name, role: e.role, sha256: sha(e.token) }));
    writeFileSync(api.tokensFile!, stringify({ tokens }));
    await waitFor(
      'the api to reload its tokens',
      () => (api.api.output().match(/reloaded \d+ token/g) ?? []).length > before,
      {
        timeoutMs: 10_000,
        intervalMs: 100,
      },
    );
  }

  async function login(token: string, headers: Record<string, string> = {}): Promise<string> {
    const res = await api.call('POST', '/session', {
      as: 'none',
      body: { token },
      headers: { 'x-drover-csrf': '1', ...headers },
    });
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie')!;
    return cookie.split(';')[0]!;
  }

  const stream = async (
    path: string,
    as: Parameters<typeof SseConnection.open>[2],
    headers: Record<string, string> = {},
  ) => {
    const s = expectStream(await SseConnection.open(api, path, as, headers));
    open.push(s);
    return s;
  };

  it("refuses a session's write from another site's page; the console's own origin passes", async () => {
    const cookie = await login(api.tokens.operator);
    const base = { cookie, 'x-drover-csrf': '1', host: `127.0.0.1:${api.api.port}` };
    const foreign = await raw(api, 'POST', '/queues/default/pause', { ...base, origin: 'https://evil.test' }, {});
    expect(expectProblem(foreign, 403).detail).toContain('own origin');
    const own = await raw(
      api,
      'POST',
      '/queues/default/pause',
      { ...base, origin: `http://127.0.0.1:${api.api.port}` },
      {},
    );
    expect(own.status).toBe(200);
    // Bearer clients are not browsers' ambient credentials: their Origin is not checked.
    const bearer = await api.call('POST', '/queues/default/resume', {
      as: 'operator',
      body: {},
      headers: { origin: 'https://evil.test' },
    });
    expect(bearer.status).toBe(200);
  });

  it('logging out ends the streams of that session at once', async () => {
    const cookie = await login(api.tokens.viewer);
    const s = await stream('/events', 'none', { cookie });
    const t0 = Date.now();
    expect(
      (await api.call('DELETE', '/session', { as: 'none', headers: { cookie, 'x-drover-csrf': '1' } })).status,
    ).toBe(204);
    await s.waitForEnd(3_000);
    expect(Date.now() - t0).toBeLessThan(3_000);
    expectProblem(await api.call('GET', '/queues', { as: 'none', headers: { cookie } }), 401);
  });

  it('a removed token, a replaced one and a lowered role end their sessions and streams without a restart', async () => {
    const { viewer, operator, admin } = api.tokens;
    const opCookie = await login(operator);
    const adminCookie = await login(admin);
    const viewerCookie = await login(viewer);
    const opStream = await stream('/events', 'none', { cookie: opCookie });
    const opRunStream = await stream('/events?kinds=run', 'none', { cookie: opCookie });
    const viewerBearer = await stream('/events', 'viewer');
    const adminBearer = await stream('/events', 'admin');
    for (const cookie of [opCookie, adminCookie, viewerCookie]) {
      expect((await api.call('GET', '/queues', { as: 'none', headers: { cookie } })).status).toBe(200);
    }

    // operator removed, viewer's token replaced (same name, new hash), admin lowered to operator.
    await writeTokens([
      { name: 'viewer-token', role: 'viewer', token: 'a-new-viewer-token' },
      { name: 'admin-token', role: 'operator', token: admin },
    ]);
    for (const [cookie, why] of [
      [opCookie, 'which is no longer in the tokens file'],
      [viewerCookie, 'which was replaced'],
      [adminCookie, 'was opened as admin; token "admin-token" is now operator'],
    ] as const) {
      const res = expectProblem(await api.call('GET', '/queues', { as: 'none', headers: { cookie } }), 401);
      expect(res.detail).toContain(why);
    }
    expectProblem(await api.call('GET', '/queues', { as: 'viewer' }), 401);
    expect((await api.call('GET', '/queues', { as: { token: 'a-new-viewer-token' } })).status).toBe(200);
    // The admin bearer token itself is good, now as operator.
    expectProblem(await api.call('GET', '/audit', { as: 'admin' }), 403);

    // Open streams end within the re-check period: the removed token's session's and the replaced bearer token's.
    await Promise.all([opStream.waitForEnd(10_000), opRunStream.waitForEnd(10_000), viewerBearer.waitForEnd(10_000)]);
    expect(adminBearer.isEnded).toBe(false);

    // Putting the old token back does not revive a session that was refused.
    await writeTokens([{ name: 'operator-token', role: 'operator', token: operator }]);
    expectProblem(await api.call('GET', '/queues', { as: 'none', headers: { cookie: opCookie } }), 401);
    await adminBearer.waitForEnd(10_000);
  }, 60_000);

  it('re-reads the file at once on SIGHUP, and keeps serving', async () => {
    const before = (api.api.output().match(/"why":"SIGHUP"/g) ?? []).length;
    process.kill(api.api.pid, 'SIGHUP');
    await waitFor('the SIGHUP reload', () => (api.api.output().match(/"why":"SIGHUP"/g) ?? []).length > before, {
      timeoutMs: 5_000,
      intervalMs: 50,
    });
    expect((await api.call('GET', '/queues', { as: 'operator' })).status).toBe(200);
  });

  it('keeps the tokens it has when the file is rewritten with a mistake', async () => {
    const before = (api.api.output().match(/tokens file not reloaded/g) ?? []).length;
    writeFileSync(api.tokensFile!, 'tokens: [ { name: x, role: root } ]\n');
    await waitFor(
      'the api to log the bad file',
      () => (api.api.output().match(/tokens file not reloaded/g) ?? []).length > before,
      {
        timeoutMs: 10_000,
        intervalMs: 100,
      },
    );
    expect((await api.call('GET', '/queues', { as: 'operator' })).status).toBe(200);
    expectProblem(await api.call('GET', '/queues', { as: 'none' }), 401);
  });
});

describe('the session cookie behind a TLS proxy, and caps on event streams (real api)', () => {
  let api: ApiCluster;
  const open: SseConnection[] = [];

  beforeAll(async () => {
    api = await ApiCluster.start('auth-proxy', {
      policy: { queues: [{ name: 'default' }] },
      scheduler: false,
      worker: false,
      apiEnv: { DROVER_TRUST_PROXY: 'loopback', DROVER_API_STREAMS_PER_TOKEN: '2', DROVER_API_STREAMS_MAX: '3' },
    });
  }, 60_000);

  afterAll(async () => {
    open.forEach((s) => s.close());
    await api?.close();
  }, 30_000);

  it('is Secure and __Host- prefixed when a trusted proxy says https, plain over plain http', async () => {
    const host = 'drover.test';
    const viaProxy = { 'x-drover-csrf': '1', host, 'x-forwarded-proto': 'https', origin: `https://${host}` };
    const res = await raw(api, 'POST', '/session', viaProxy, { token: api.tokens.operator });
    expect(res.status).toBe(200);
    const setCookie = res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(
      /^__Host-drover_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200; Secure$/,
    );
    const cookie = setCookie.split(';')[0]!;
    const who = await raw(api, 'GET', '/session', { cookie, host, 'x-forwarded-proto': 'https' });
    expect(who.body).toMatchObject({ authenticated: true, name: 'operator-token', auth: 'session' });
    // Behind TLS the page is https: an http page of the same name is another origin.
    const downgraded = { ...viaProxy, cookie, origin: `http://${host}` };
    expectProblem(await raw(api, 'POST', '/queues/default/pause', downgraded, {}), 403);

    const plain = await api.call('POST', '/session', {
      as: 'none',
      body: { token: api.tokens.operator },
      headers: { 'x-drover-csrf': '1' },
    });
    expect(plain.headers.get('set-cookie')).toMatch(
      /^drover_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/,
    );
  });

  it('answers 429 with Retry-After beyond the streams of one token, then of the process', async () => {
    const openAs = async (as: 'viewer' | 'operator' | 'admin') => {
      const s = await SseConnection.open(api, '/events', as);
      if (s instanceof SseConnection) open.push(s);
      return s;
    };
    expect((await openAs('viewer')).status).toBe(200);
    const second = await openAs('viewer');
    expect(second.status).toBe(200);
    const third = await openAs('viewer');
    expect(third).not.toBeInstanceOf(SseConnection);
    if (third instanceof SseConnection) return;
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('10');
    expect(third.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((third.problem as { detail: string }).detail).toContain('token "viewer-token" has 2 open event streams');
    // Another token still gets one, up to the process's 3 …
    expect((await openAs('operator')).status).toBe(200);
    const full = await openAs('admin');
    expect(full.status).toBe(429);
    expect((full as { problem: { detail: string } }).problem.detail).toContain('DROVER_API_STREAMS_MAX');
    // … and a closed stream frees its place.
    (second as SseConnection).close();
    await waitFor('a place to free up', async () => (await openAs('admin')).status === 200, {
      timeoutMs: 5_000,
      intervalMs: 100,
    });
  });
});

describe('DROVER_API_TOKENS_FILE set but empty', () => {
  it('stops the api with exit code 2 and a line naming the variable, instead of development mode', async () => {
    const app = await startApp('api', {
      env: { REDIS_URL: testRedisUrl(), DROVER_PREFIX: uniquePrefix('empty-tokens'), DROVER_API_TOKENS_FILE: '' },
      waitReady: false,
    });
    expect(await app.exited).toBe(2);
    expect(app.output().trim()).toBe(
      'drover api: invalid configuration: DROVER_API_TOKENS_FILE: is set but empty: name a tokens file, or unset the variable for development mode (loopback only) (e.g. /etc/drover/tokens.yaml)',
    );
    expect(app.output()).not.toContain('DEVELOPMENT MODE');
  });
});
