import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { ProblemError } from '../http/problem';
import { ApiAuth } from './api-auth.service';

const req = (remoteAddress: string, authorization?: string) =>
  ({ socket: { remoteAddress }, headers: authorization ? { authorization } : {} }) as unknown as Request;

function statusOf(fn: () => unknown): number {
  try {
    fn();
  } catch (err) {
    return (err as ProblemError).problem.status;
  }
  return 200;
}

describe('ApiAuth', () => {
  it('in development mode serves loopback clients as admin and refuses everyone else, forwarded headers or not', () => {
    const auth = new ApiAuth(undefined);
    expect(auth.developmentMode).toBe(true);
    expect(auth.authenticate(req('127.0.0.1'))).toEqual({ name: 'dev', role: 'admin' });
    expect(auth.authenticate(req('::1'))).toEqual({ name: 'dev', role: 'admin' });
    expect(statusOf(() => auth.authenticate(req('10.1.2.3')))).toBe(403);
    const forwarded = { ...req('10.1.2.3'), headers: { 'x-forwarded-for': '127.0.0.1' } } as unknown as Request;
    expect(statusOf(() => auth.authenticate(forwarded))).toBe(403);
  });

  it('with tokens needs a bearer token from any address, loopback included', () => {
    const auth = new ApiAuth([
      { name: 'ops', role: 'operator', sha256: createHash('sha256').update('s3cret').digest('hex') },
    ]);
    expect(statusOf(() => auth.authenticate(req('127.0.0.1')))).toBe(401);
    expect(statusOf(() => auth.authenticate(req('127.0.0.1', 'Basic czNjcmV0')))).toBe(401);
    expect(statusOf(() => auth.authenticate(req('127.0.0.1', 'Bearer wrong')))).toBe(401);
    expect(auth.authenticate(req('10.1.2.3', 'bearer s3cret'))).toEqual({ name: 'ops', role: 'operator' });
    expect(statusOf(() => auth.require({ name: 'ops', role: 'operator' }, 'admin'))).toBe(403);
  });
});
