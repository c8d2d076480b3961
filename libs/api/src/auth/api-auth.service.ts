import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Request } from 'express';
import type { ApiRole, ApiToken } from '@drover/config';
import { SessionStore } from '@drover/store';
import { ProblemError } from '../http/problem';
import { CSRF_HEADER, readCookie, sessionCookieName } from '../session/session-cookie';
import { isLoopback } from './loopback';
import { roleAllows, roleRank, type AuthenticatedRequest, type Principal } from './principal';
import { isLoopbackHostName, isOwnOrigin, parseHostHeader } from './request-origin';
import { TokenVerifier } from './token-verifier';

export const API_TOKENS = Symbol('drover.api-tokens');
export const API_AUTH_OPTIONS = Symbol('drover.api-auth-options');

/** What ApiAuth needs of the deployment besides the tokens. */
export interface ApiAuthOptions {
  /** DROVER_API_ALLOWED_HOSTS: Host names besides loopback ones, lower case, without port. */
  allowedHosts?: readonly string[];
  /** DROVER_API_COOKIE_SECURE: the session cookie is Secure (and `__Host-`) on every answer. */
  cookieSecure?: boolean;
}

const BEARER = /^Bearer +([^\s]+) *$/i;
const DEV: Principal = { name: 'dev', role: 'admin' };
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const csrfRefusal = (why: string) =>
  new ProblemError(403, `${why} must carry the header "X-Drover-CSRF: 1" (the console sends it; other sites cannot)`);
const sessionOver = (why: string) => new ProblemError(401, `the console session ${why}: log in again`);

/**
 * Who a request is: with a tokens file, the bearer token's name and role, or the console session
 * its cookie names (re-checked against the current tokens on every request); without one
 * (development mode), any loopback client as admin and nobody else. Forwarded-for headers are
 * ignored on purpose, trusted proxy or not: behind a proxy every client would look local. The
 * tokens can be replaced while the api runs (a tokens-file reload).
 */
@Injectable()
export class ApiAuth {
  private verifier?: TokenVerifier;
  private readonly allowedHosts: readonly string[];
  private readonly cookieSecure: boolean;

  constructor(
    @Optional() @Inject(API_TOKENS) tokens?: ApiToken[],
    @Optional() private readonly sessions?: SessionStore,
    @Optional() @Inject(API_AUTH_OPTIONS) opts: ApiAuthOptions = {},
  ) {
    if (tokens) this.verifier = new TokenVerifier(tokens);
    this.allowedHosts = opts.allowedHosts ?? [];
    this.cookieSecure = opts.cookieSecure ?? false;
  }

  get developmentMode(): boolean {
    return this.verifier === undefined;
  }

  /**
   * Replaces the tokens (the tokens file changed). Bearer requests and sessions are checked against
   * the new list from the next request on. Development mode cannot be entered or left this way.
   */
  replaceTokens(tokens: ApiToken[]): void {
    if (!this.verifier) throw new Error('development mode has no tokens to replace');
    this.verifier = new TokenVerifier(tokens);
  }

  /** The tokens-file entry of a presented token (a console login), or undefined; never in development mode. */
  verifyToken(token: string): ApiToken | undefined {
    return this.verifier?.find(token);
  }

  /** Whether answers to `req` are Secure: TLS seen by Node or told by a trusted proxy, or configured. */
  secure(req: Request): boolean {
    return req.secure === true || this.cookieSecure;
  }

  /** The session cookie's name for `req` (`__Host-drover_session` when Secure). */
  cookieName(req: Request): string {
    return sessionCookieName(this.secure(req));
  }

  /**
   * Authenticates `req`. A cookie-authenticated mutating request needs the CSRF header and an
   * Origin (if any) of the api's own; the session it came from is left on `req.consoleSession`.
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
      // DNS rebinding: a page of evil.test whose name now resolves to 127.0.0.1 reaches this api
      // from loopback, but its requests still say `Host: evil.test`.
      const host = parseHostHeader(req.headers.host);
      if (!host || !(isLoopbackHostName(host.name) || this.allowedHosts.includes(host.name))) {
        throw new ProblemError(
          403,
          `development mode answers loopback host names only (localhost, 127.0.0.1, [::1]); Host "${String(req.headers.host ?? '')}" is not one (DROVER_API_ALLOWED_HOSTS lists others)`,
        );
      }
      // A page on any site could make a developer's browser post to a loopback api; browsers say
      // where a request came from (Origin), curl and other clients do not.
      if (mutating && req.headers.origin !== undefined) {
        this.requireOwnOrigin(req, 'in development mode, a mutating request from a browser');
        if (!req.headers[CSRF_HEADER]) throw csrfRefusal('in development mode, a mutating request from a browser');
      }
      return DEV;
    }
    const header = req.headers.authorization;
    if (header !== undefined) return this.bearer(header);
    const sessionId = readCookie(req, this.cookieName(req));
    if (sessionId !== undefined && this.sessions) {
      const principal = await this.sessionPrincipal(sessionId);
      if (mutating) {
        this.requireOwnOrigin(req, 'a mutating request authenticated by the session cookie');
        if (!req.headers[CSRF_HEADER]) throw csrfRefusal('a mutating request authenticated by the session cookie');
      }
      req.consoleSession = principal.session;
      req.consoleSessionId = sessionId;
      return { name: principal.name, role: principal.role };
    }
    throw new ProblemError(401, 'send "Authorization: Bearer <token>"', undefined, { 'WWW-Authenticate': 'Bearer' });
  }

  /**
   * 403 when `req` carries an Origin that is not the api's own (same host and port as the Host it
   * was sent to, https when the request came over TLS, or a DROVER_API_ALLOWED_HOSTS name).
   */
  requireOwnOrigin(req: Request, what: string): void {
    const origin = req.headers.origin;
    if (origin === undefined) return;
    const own = isOwnOrigin(origin, parseHostHeader(req.headers.host), {
      allowedHosts: this.allowedHosts,
      secure: this.secure(req),
    });
    if (!own) {
      throw new ProblemError(
        403,
        `${what} must come from the api's own origin; Origin "${origin}" is not (DROVER_API_ALLOWED_HOSTS lists others)`,
      );
    }
  }

  /**
   * The session's principal with the role of the token it was opened with, as the tokens are now:
   * a removed or replaced token (same name, other hash) or a lowered role ends the session.
   */
  private async sessionPrincipal(id: string) {
    const session = await this.sessions!.get(id);
    if (!session) throw sessionOver('expired or was closed');
    const token = this.verifier!.named(session.name);
    let why: string | undefined;
    if (!token) why = `was opened with token "${session.name}", which is no longer in the tokens file`;
    else if (token.sha256 !== session.tokenSha256) why = `was opened with token "${session.name}", which was replaced`;
    else if (roleRank(token.role) < roleRank(session.role)) {
      why = `was opened as ${session.role}; token "${session.name}" is now ${token.role}`;
    }
    if (why) {
      // Gone for good: putting the old token back does not revive it.
      await this.sessions!.close(id).catch(() => undefined);
      throw sessionOver(why);
    }
    return { name: token!.name, role: token!.role, session };
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

  /**
   * Whether the credentials `req` was authenticated with are still good (an open event stream asks
   * this periodically). Only a refusal says no: a Redis hiccup does not end streams.
   */
  async stillValid(req: Request & AuthenticatedRequest): Promise<boolean> {
    try {
      await this.authenticate(req);
      return true;
    } catch (err) {
      return !(err instanceof ProblemError);
    }
  }

  /** 403 unless the principal's role is at least `needed`. */
  require(principal: Principal, needed: ApiRole, what = 'this route'): void {
    if (!roleAllows(principal.role, needed)) {
      throw new ProblemError(403, `${what} needs role ${needed}; token "${principal.name}" has role ${principal.role}`);
    }
  }
}
