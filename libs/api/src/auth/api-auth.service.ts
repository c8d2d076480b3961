import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Request } from 'express';
import type { ApiRole, ApiToken } from '@drover/config';
import { ProblemError } from '../http/problem';
import { isLoopback } from './loopback';
import { roleAllows, type Principal } from './principal';
import { TokenVerifier } from './token-verifier';

export const API_TOKENS = Symbol('drover.api-tokens');

const BEARER = /^Bearer +([^\s]+) *$/i;
const DEV: Principal = { name: 'dev', role: 'admin' };

/**
 * Who a request is: with a tokens file, the bearer token's name and role; without one
 * (development mode), any loopback client as admin and nobody else. Forwarded-for headers are
 * ignored on purpose: behind a proxy every client would look local.
 */
@Injectable()
export class ApiAuth {
  private readonly verifier?: TokenVerifier;

  constructor(@Optional() @Inject(API_TOKENS) tokens?: ApiToken[]) {
    if (tokens) this.verifier = new TokenVerifier(tokens);
  }

  get developmentMode(): boolean {
    return this.verifier === undefined;
  }

  authenticate(req: Request): Principal {
    if (!this.verifier) {
      if (isLoopback(req.socket.remoteAddress)) return DEV;
      throw new ProblemError(
        403,
        'development mode (DROVER_API_TOKENS_FILE is unset) serves loopback clients only; configure tokens to serve others',
      );
    }
    const header = req.headers.authorization;
    const m = header ? BEARER.exec(header) : null;
    if (!m) {
      throw new ProblemError(401, 'send "Authorization: Bearer <token>"', undefined, { 'WWW-Authenticate': 'Bearer' });
    }
    const principal = this.verifier.verify(m[1]!);
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
