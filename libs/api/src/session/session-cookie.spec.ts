import type { Request } from 'express';
import { readCookie, sessionCookie } from './session-cookie';

const withCookie = (cookie?: string) => ({ headers: cookie === undefined ? {} : { cookie } }) as unknown as Request;

describe('session cookie', () => {
  it('reads one cookie out of a Cookie header, ignoring look-alike names', () => {
    expect(readCookie(withCookie('a=1; drover_session=abc%2Dd; b=2'), 'drover_session')).toBe('abc-d');
    expect(readCookie(withCookie('xdrover_session=abc'), 'drover_session')).toBeUndefined();
    expect(readCookie(withCookie(), 'drover_session')).toBeUndefined();
    expect(readCookie(withCookie('drover_session=%E0%A4%A'), 'drover_session')).toBeUndefined();
  });

  it('is httpOnly, SameSite=Strict and Path=/, and Secure (with the __Host- prefix) only when asked', () => {
    expect(sessionCookie('v', { maxAgeMs: 43_200_000, secure: false })).toBe(
      'drover_session=v; Path=/; HttpOnly; SameSite=Strict; Max-Age=43200',
    );
    expect(sessionCookie('', { maxAgeMs: 0, secure: true })).toBe(
      '__Host-drover_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure',
    );
  });
});
