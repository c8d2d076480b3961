import {
  applyDecorators,
  createParamDecorator,
  HttpCode,
  RequestMapping,
  RequestMethod,
  SetMetadata,
  UseGuards,
  UseInterceptors,
  type ExecutionContext,
} from '@nestjs/common';
import { ApiAuthGuard } from '../auth/api-auth.guard';
import { TokenThrottlerGuard } from '../auth/token-throttler.guard';
import { AuditInterceptor } from '../audit/audit.interceptor';
import { InputInterceptor, type RequestWithInput } from './input.interceptor';
import { isMutating, ROUTE_SPEC, successStatus, type RouteSpec } from './route-spec';

const METHODS = {
  GET: RequestMethod.GET,
  POST: RequestMethod.POST,
  PUT: RequestMethod.PUT,
  PATCH: RequestMethod.PATCH,
  DELETE: RequestMethod.DELETE,
} as const;

/**
 * Makes a controller method the route `spec` declares: routed by Nest, guarded by role, rate
 * limited per token when it mutates, its input validated, mutations audited, and listed in the
 * OpenAPI document (which reads the same metadata).
 */
export function ApiRoute(spec: RouteSpec): MethodDecorator {
  const guards = isMutating(spec.method) ? [ApiAuthGuard, TokenThrottlerGuard] : [ApiAuthGuard];
  const interceptors = isMutating(spec.method) ? [AuditInterceptor, InputInterceptor] : [InputInterceptor];
  return applyDecorators(
    SetMetadata(ROUTE_SPEC, spec),
    RequestMapping({ path: spec.path, method: METHODS[spec.method] }),
    HttpCode(successStatus(spec)),
    UseGuards(...guards),
    UseInterceptors(...interceptors),
  );
}

/** The validated `{params, query, body}` of the request (see {@link RouteInput}). */
export const In = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  return ctx.switchToHttp().getRequest<RequestWithInput>().droverInput;
});
