import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Request } from 'express';
import type { ApiRole, ApiToken } from '@drover/config';
import { ProblemError } from '../http/problem';
import { CSRF_HEADER, readCookie, SESSION_COOKIE } from '../session/session-cookie';
import { SessionStore } from '../session/session-store';
import { isLoopback } from './loopback';
import { roleAllows, type AuthenticatedRequest, type Principal } from './principal';
import { TokenVerifier } from './token-verifier';

export const API_TOKENS = Symbol('drover.api-tokens');

const BEARER = /^Bearer +([^\s]+) *$/i;
const DEV: Principal = { name: 'dev', role: 'admin' };
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const csrfRefusal = (why: string) =>
  new ProblemError(403, `${why} must carry the header "X-Drover-CSRF: 1" (the console sends it; other sites cannot)`);

/**
 * Who a request is: with a tokens file, the bearer token's name and role, or the console session
 * its cookie names; without one (development mode), any loopback client as admin and nobody
 * else. Forwarded-for headers are ignored on purpose: behind a proxy every client would look local.
 */
@Injectable()
export class ApiAuth {
  private readonly verifier?: TokenVerifier;

  constructor(
    @Optional() @Inject(API_TOKENS) tokens?: ApiToken[],
    @Optional() private readonly sessions?: SessionStore,
  ) {
    if (tokens) this.verifier = new TokenVerifier(tokens);
  }

  get developmentMode(): boolean {
    return this.verifier === undefined;
  }

  /** The principal of a presented token (a console login), or undefined; never in development mode. */
  verifyToken(token: string): Principal | undefined {
    return this.verifier?.verify(token);
  }

  /**
   * Authenticates `req`. A cookie-authenticated mutating request needs the CSRF header; the
   * session it came from is left on `req.consoleSession`.
   */
  async authenticate(req: Request & AuthenticatedRequest): Promise<Principal> {
    const mutating = !SAFE_METHODS.has(req.method);
    if (!this.verifier) {
      if (!isLoopback(req.socket.remoteAddress)) {
        throw new ProblemError(
          403,
          'development mode (DROVER_API_TOKENS_FILE is unset) serves loopback clients only; configure tokens to serve others',
        );
      }
      // A page on any site could make a developer's browser post to a loopback api; browsers say
      // where a request came from (Origin), curl and other clients do not.
      if (mutating && req.headers.origin !== undefined && !req.headers[CSRF_HEADER]) {
        throw csrfRefusal('in development mode, a mutating request from a browser');
      }
      return DEV;
    }
    const header = req.headers.authorization;
    if (header !== undefined) return this.bearer(header);
    const sessionId = readCookie(req, SESSION_COOKIE);
    if (sessionId !== undefined && this.sessions) {
      const session = await this.sessions.get(sessionId);
      if (!session) throw new ProblemError(401, 'the console session expired or was closed: log in again');
      if (mutating && !req.headers[CSRF_HEADER])
        throw csrfRefusal('a mutating request authenticated by the session cookie');
      req.consoleSession = session;
      return { name: session.name, role: session.role };
    }
    throw new ProblemError(401, 'send "Authorization: Bearer <token>"', undefined, { 'WWW-Authenticate': 'Bearer' });
  }

  private bearer(header: string): Principal {
    const m = BEARER.exec(header);
    if (!m) {
      throw new ProblemError(401, 'send "Authorization: Bearer <token>"', undefined, { 'WWW-Authenticate': 'Bearer' });
    }
    const principal = this.verifier!.verify(m[1]!);
    if (!principal) {
      throw new ProblemError(401, 'the bearer token is not valid', undefined, {
        'WWW-Authenticate': 'Bearer error="invalid_token"',
      });
    }
    return principal;
  }

  /** 403 unless the principal's role is at least `needed`. */
  require(principal: Principal, needed: ApiRole, what = 'this route'): void {
    if (!roleAllows(principal.role, needed)) {
      throw new ProblemError(403, `${what} needs role ${needed}; token "${principal.name}" has role ${principal.role}`);
    }
  }
}
