import { Injectable, Logger, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { catchError, concatMap, from, map, type Observable } from 'rxjs';
import { Clock } from '@drover/redis';
import { AuditLog, type AuditLogName } from '@drover/store';
import type { AuthenticatedRequest } from '../auth/principal';
import { isoOf } from '../http/api-time';
import { mapError } from '../http/error-mapping';
import { ROUTE_SPEC, successStatus, type RouteSpec } from '../http/route-spec';

/** Path parameters as a short target string (`name=nightly`), or `-`. */
function targetOf(req: Request): string {
  const parts = Object.entries(req.params ?? {}).map(([k, v]) => `${k}=${String(v)}`);
  return parts.length ? parts.join(' ').slice(0, 512) : '-';
}

/**
 * Writes one audit entry for `req` to `log`. A failed write is logged, never fails the call.
 */
export function auditCall(
  audit: AuditLog,
  clock: Clock,
  logger: Logger,
  req: Request & AuthenticatedRequest,
  spec: RouteSpec | undefined,
  status: number,
  log: AuditLogName,
): Promise<void> {
  // An unauthenticated caller past its refusal limit is counted (RefusalThrottle), not stored.
  if (!req.principal && status === 429) return Promise.resolve();
  return audit
    .record(
      {
        at: isoOf(clock.now()),
        token: req.principal?.name ?? 'anonymous',
        role: req.principal?.role ?? '-',
        action: spec?.operationId ?? `${req.method} ${req.path}`,
        target: targetOf(req),
        status,
        ip: req.socket.remoteAddress ?? '',
      },
      log,
    )
    .catch((err: unknown) => logger.warn(`could not write the audit log: ${(err as Error).message}`));
}

/**
 * Records every mutating call that passed the guard (the guard records refused ones), after
 * the handler ran and before the answer leaves, so a caller that saw success finds it in the log.
 * A call that no principal made (the console's login and logout, which need no role, when they
 * name no valid token or session) goes to the refused log: anonymous traffic never reaches the
 * principals' one.
 */
@Injectable()
export class AuditInterceptor implements NestInterceptor {
  private readonly logger = new Logger('AuditLog');

  constructor(
    private readonly reflector: Reflector,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const spec = this.reflector.get<RouteSpec | undefined>(ROUTE_SPEC, ctx.getHandler());
    const req = ctx.switchToHttp().getRequest<Request & AuthenticatedRequest>();
    const res = ctx.switchToHttp().getResponse<Response>();
    const write = (status: number) =>
      auditCall(this.audit, this.clock, this.logger, req, spec, status, req.principal ? 'principals' : 'refused');
    // A handler that picks its own status sets it before returning; otherwise Nest applies the
    // route's HttpCode when it sends, after this runs.
    const okStatus = () => (res.statusCode !== 200 || !spec ? res.statusCode : successStatus(spec));
    return next.handle().pipe(
      concatMap((value) => from(write(okStatus())).pipe(map(() => value))),
      catchError((err: unknown) =>
        from(write(mapError(err).problem.status)).pipe(
          map(() => {
            throw err;
          }),
        ),
      ),
    );
  }
}
