import type { Request } from 'express';

/** The console's session cookie over plain HTTP (loopback development): browsers refuse `__Host-` there. */
export const SESSION_COOKIE = 'drover_session';

/**
 * The cookie's name when it is `Secure`: the `__Host-` prefix makes browsers refuse it unless it is
 * Secure, Path=/ and has no Domain, so a sibling subdomain cannot plant or overwrite it.
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/** The session cookie's name for an answer that is (or is not) marked Secure. */
export const sessionCookieName = (secure: boolean): string => (secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE);

/**
 * The header a cookie-authenticated mutating request must carry. With CORS off, a page on another
 * origin cannot send a custom header, so its presence proves the request came from the console.
 */
export const CSRF_HEADER = 'x-drover-csrf';

/** The value of cookie `name` in the request's Cookie header, or undefined. */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * A Set-Cookie value for the session: httpOnly (scripts never see it), SameSite=Strict (other
 * sites' requests do not carry it), Path=/ (the console's API calls and event streams need it),
 * Secure over TLS (seen by Node or told by a trusted proxy) or when the deployment says so, and then
 * named with the `__Host-` prefix.
 */
export function sessionCookie(value: string, opts: { maxAgeMs: number; secure: boolean }): string {
  const parts = [
    `${sessionCookieName(opts.secure)}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${Math.max(0, Math.floor(opts.maxAgeMs / 1000))}`,
  ];
  if (opts.secure) parts.push('Secure');
  return parts.join('; ');
}
