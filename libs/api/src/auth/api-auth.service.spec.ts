import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { ProblemError } from '../http/problem';
import type { ApiToken } from '@drover/config';
import type { Session, SessionStore } from '@drover/store';
import type { Principal } from './principal';
import { ApiAuth } from './api-auth.service';

const req = (remoteAddress: string, headers: Record<string, string> = {}, method = 'GET') =>
  ({ method, socket: { remoteAddress }, headers: { host: '127.0.0.1:3000', ...headers } }) as unknown as Request;

async function statusOf(fn: () => Promise<unknown> | unknown): Promise<number> {
  try {
    await fn();
  } catch (err) {
    return (err as ProblemError).problem.status;
  }
  return 200;
}

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const OPS = { name: 'ops', role: 'operator' as const, sha256: sha('s3cret') };
const RO = { name: 'ro', role: 'viewer' as const, sha256: sha('ro-token') };
const SID = 'sid-0123456789abcdefghij';

/** A session store holding one session, `sid-…`, of the token named `ro`; it records what it closed. */
function sessionStore(
  session: Session = { name: 'ro', role: 'viewer', tokenSha256: RO.sha256, createdAt: 0, expiresAt: 1 },
) {
  const closed: string[] = [];
  const store = {
    get: (id: string): Promise<Session | undefined> =>
      Promise.resolve(id === SID && !closed.includes(id) ? session : undefined),
    close: (id: string) => Promise.resolve(void closed.push(id)),
  } as unknown as SessionStore;
  return { store, closed };
}
const sessions = sessionStore().store;

describe('ApiAuth', () => {
  it('in development mode serves loopback clients as admin and refuses everyone else, forwarded headers or not', async () => {
    const auth = new ApiAuth(undefined);
    expect(auth.developmentMode).toBe(true);
    await expect(auth.authenticate(req('127.0.0.1'))).resolves.toEqual({ name: 'dev', role: 'admin' });
    await expect(auth.authenticate(req('::1'))).resolves.toEqual({ name: 'dev', role: 'admin' });
    expect(await statusOf(() => auth.authenticate(req('10.1.2.3')))).toBe(403);
    expect(await statusOf(() => auth.authenticate(req('10.1.2.3', { 'x-forwarded-for': '127.0.0.1' })))).toBe(403);
  });

  it('in development mode refuses a browser write from another page (Origin without the CSRF header)', async () => {
    const auth = new ApiAuth(undefined);
    const fromPage = req('127.0.0.1', { origin: 'https://evil.example' }, 'POST');
    expect(await statusOf(() => auth.authenticate(fromPage))).toBe(403);
    const fromConsole = req('127.0.0.1', { origin: 'http://127.0.0.1:3000', 'x-drover-csrf': '1' }, 'POST');
    await expect(auth.authenticate(fromConsole)).resolves.toEqual({ name: 'dev', role: 'admin' });
    await expect(auth.authenticate(req('127.0.0.1', {}, 'POST'))).resolves.toEqual({ name: 'dev', role: 'admin' });
  });

  it('in development mode refuses Host names that are not loopback ones (DNS rebinding), unless listed', async () => {
    const auth = new ApiAuth(undefined, undefined, { allowedHosts: ['drover.internal'] });
    for (const host of [
      'localhost:3000',
      'LOCALHOST',
      'app.localhost:3000',
      '127.0.0.1',
      '127.8.0.1:3000',
      '[::1]:3000',
      'drover.internal:3000',
      'localhost.',
    ]) {
      await expect(auth.authenticate(req('127.0.0.1', { host }))).resolves.toEqual({ name: 'dev', role: 'admin' });
    }
    for (const host of [
      'evil.test:3000',
      'localhost.evil.test',
      '127.0.0.1.nip.io',
      '10.0.0.1:3000',
      '',
      'a/b',
      'user@localhost',
    ]) {
      expect([host, await statusOf(() => auth.authenticate(req('127.0.0.1', { host })))]).toEqual([host, 403]);
    }
    const noHost = { method: 'GET', socket: { remoteAddress: '127.0.0.1' }, headers: {} } as unknown as Request;
    expect(await statusOf(() => auth.authenticate(noHost))).toBe(403);
  });

  it("in development mode refuses a browser write whose Origin is not the api's own, CSRF header or not", async () => {
    const auth = new ApiAuth(undefined, undefined, { allowedHosts: ['drover.internal'] });
    const write = (origin: string, host = 'localhost:3000') =>
      statusOf(() => auth.authenticate(req('127.0.0.1', { host, origin, 'x-drover-csrf': '1' }, 'POST')));
    expect(await write('http://localhost:3000')).toBe(200);
    expect(await write('http://127.0.0.1', '127.0.0.1:80')).toBe(200);
    expect(await write('http://drover.internal:8080')).toBe(200);
    expect(await write('http://localhost:5173')).toBe(403); // another local dev server's page
    expect(await write('http://evil.test:3000')).toBe(403);
    expect(await write('null')).toBe(403);
    // Over TLS (seen or told by a trusted proxy) the page must be https too.
    const tls = {
      ...req('127.0.0.1', { host: 'localhost', origin: 'http://localhost', 'x-drover-csrf': '1' }, 'POST'),
      secure: true,
    };
    expect(await statusOf(() => auth.authenticate(tls as Request))).toBe(403);
    const tlsOwn = { ...tls, headers: { ...tls.headers, origin: 'https://localhost' } };
    expect(await statusOf(() => auth.authenticate(tlsOwn as Request))).toBe(200);
  });

  it('with tokens needs a bearer token from any address, loopback included', async () => {
    const auth = new ApiAuth([OPS]);
    expect(await statusOf(() => auth.authenticate(req('127.0.0.1')))).toBe(401);
    expect(await statusOf(() => auth.authenticate(req('127.0.0.1', { authorization: 'Basic czNjcmV0' })))).toBe(401);
    expect(await statusOf(() => auth.authenticate(req('127.0.0.1', { authorization: 'Bearer wrong' })))).toBe(401);
    await expect(auth.authenticate(req('10.1.2.3', { authorization: 'bearer s3cret' }))).resolves.toEqual({
      name: 'ops',
      role: 'operator',
    });
    expect(await statusOf(() => auth.require({ name: 'ops', role: 'operator' }, 'admin'))).toBe(403);
  });

  it('accepts a live session cookie as its token, and needs the CSRF header when the request writes', async () => {
    const auth = new ApiAuth([OPS, RO], sessions);
    const cookie = `theme=dark; drover_session=${SID}`;
    const read = req('10.1.2.3', { cookie });
    await expect(auth.authenticate(read)).resolves.toEqual({ name: 'ro', role: 'viewer' });
    expect((read as { consoleSession?: Session }).consoleSession?.name).toBe('ro');
    expect(await statusOf(() => auth.authenticate(req('10.1.2.3', { cookie }, 'POST')))).toBe(403);
    await expect(auth.authenticate(req('10.1.2.3', { cookie, 'x-drover-csrf': '1' }, 'POST'))).resolves.toEqual({
      name: 'ro',
      role: 'viewer',
    });
    // A bearer token needs no CSRF header, and wins over a cookie.
    await expect(
      auth.authenticate(req('10.1.2.3', { cookie, authorization: 'Bearer s3cret' }, 'POST')),
    ).resolves.toEqual({ name: 'ops', role: 'operator' });
    expect(
      await statusOf(() => auth.authenticate(req('10.1.2.3', { cookie: 'drover_session=gone-0123456789abcdefghij' }))),
    ).toBe(401);
    // A write from another site's page is refused even with the header.
    const foreign = { cookie, 'x-drover-csrf': '1', origin: 'https://evil.example' };
    expect(await statusOf(() => auth.authenticate(req('10.1.2.3', foreign, 'POST')))).toBe(403);
    const own = { cookie, 'x-drover-csrf': '1', origin: 'http://127.0.0.1:3000' };
    await expect(auth.authenticate(req('10.1.2.3', own, 'POST'))).resolves.toEqual({ name: 'ro', role: 'viewer' });
  });

  it('reads only the __Host- cookie when answers are Secure', async () => {
    const auth = new ApiAuth([OPS, RO], sessions, { cookieSecure: true });
    expect(await statusOf(() => auth.authenticate(req('10.1.2.3', { cookie: `drover_session=${SID}` })))).toBe(401);
    await expect(auth.authenticate(req('10.1.2.3', { cookie: `__Host-drover_session=${SID}` }))).resolves.toEqual({
      name: 'ro',
      role: 'viewer',
    });
  });

  it("re-checks a session against the current tokens: removed, replaced or lowered ends it; the role is the token's", async () => {
    const cookie = { cookie: `drover_session=${SID}` };
    const opened = (role: 'viewer' | 'operator') =>
      sessionStore({ name: 'ro', role, tokenSha256: RO.sha256, createdAt: 0, expiresAt: 1 });
    const cases: [ApiToken[], 'viewer' | 'operator', number | Principal][] = [
      [[OPS, RO], 'viewer', { name: 'ro', role: 'viewer' }],
      [[OPS, { ...RO, role: 'admin' }], 'viewer', { name: 'ro', role: 'admin' }],
      [[OPS], 'viewer', 401],
      [[OPS, { ...RO, sha256: sha('new-ro-token') }], 'viewer', 401],
      [[OPS, RO], 'operator', 401],
    ];
    for (const [tokens, role, expected] of cases) {
      const { store, closed } = opened(role);
      const auth = new ApiAuth([OPS, RO], store);
      auth.replaceTokens(tokens);
      const got = await auth.authenticate(req('10.1.2.3', cookie)).catch((err: ProblemError) => err.problem.status);
      expect(got).toEqual(expected);
      // A refused session is closed for good.
      expect(closed).toEqual(typeof expected === 'number' ? [SID] : []);
    }
  });
});
