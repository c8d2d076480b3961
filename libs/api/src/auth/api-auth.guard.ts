import { Injectable, Logger, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Clock } from '@drover/redis';
import { AuditLog } from '@drover/store';
import { auditCall } from '../audit/audit.interceptor';
import { mapError } from '../http/error-mapping';
import { isMutating, ROUTE_SPEC, type RouteSpec } from '../http/route-spec';
import { ApiAuth } from './api-auth.service';
import type { AuthenticatedRequest } from './principal';
import { RefusalThrottle } from './refusal-throttle';

/**
 * Authenticates every API request and checks the route's minimum role (docs/api.md). A refused
 * mutation is audited too, in the refused log, never the principals' one: a 403 on a purge is
 * worth knowing about, and no flood of refusals may push out what principals did. A request
 * refused before anybody was authenticated also counts against its address's refusal limit (429
 * past it, and then nothing is written).
 */
@Injectable()
export class ApiAuthGuard implements CanActivate {
  private readonly logger = new Logger('AuditLog');

  constructor(
    private readonly reflector: Reflector,
    private readonly auth: ApiAuth,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly refusals: RefusalThrottle,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const spec = this.reflector.get<RouteSpec | undefined>(ROUTE_SPEC, ctx.getHandler());
    if (!spec || spec.role === 'none') return true;
    const req = ctx.switchToHttp().getRequest<Request & AuthenticatedRequest>();
    try {
      const principal = await this.auth.authenticate(req);
      req.principal = principal;
      this.auth.require(principal, spec.role);
      return true;
    } catch (err) {
      const status = mapError(err).problem.status;
      // A 5xx (Redis away while reading a session) refused nobody.
      if (!req.principal && status < 500) await this.refusals.refused(req);
      if (isMutating(spec.method)) await auditCall(this.audit, this.clock, this.logger, req, spec, status, 'refused');
      throw err;
    }
  }
}
