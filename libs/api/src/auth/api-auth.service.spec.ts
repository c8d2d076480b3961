import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { ProblemError } from '../http/problem';
import type { Session, SessionStore } from '../session/session-store';
import { ApiAuth } from './api-auth.service';

const req = (remoteAddress: string, headers: Record<string, string> = {}, method = 'GET') =>
  ({ method, socket: { remoteAddress }, headers }) as unknown as Request;

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

/** A session store holding one session, `sid-…`, of the token named `ro`. */
const sessions = {
  get: (id: string): Promise<Session | undefined> =>
    Promise.resolve(
      id === 'sid-0123456789abcdefghij' ? { name: 'ro', role: 'viewer', createdAt: 0, expiresAt: 1 } : undefined,
    ),
} as unknown as SessionStore;

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
    const auth = new ApiAuth([OPS], sessions);
    const cookie = 'theme=dark; drover_session=sid-0123456789abcdefghij';
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
  });
});
