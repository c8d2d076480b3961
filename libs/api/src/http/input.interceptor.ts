import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import type { z } from 'zod';
import { bodyTooDeep, MAX_BODY_DEPTH, nestedDeeperThan } from './body-depth';
import { fieldErrorsOfZod } from './field-errors';
import { ProblemError, type FieldError } from './problem';
import { ROUTE_SPEC, type RouteSpec } from './route-spec';

export type RequestWithInput = Request & { droverInput?: { params: unknown; query: unknown; body: unknown } };

function check(where: string, schema: z.ZodType | undefined, value: unknown, errors: FieldError[]): unknown {
  if (!schema) return where === 'body' ? undefined : {};
  const res = schema.safeParse(value);
  if (res.success) return res.data;
  errors.push(...fieldErrorsOfZod(where, res.error, schema));
  return undefined;
}

/**
 * Validates a request's path parameters, query and body with the route's schemas before the
 * handler runs; every bad field is named in one 400 answer, and the handler sees parsed values.
 * A body nested deeper than {@link MAX_BODY_DEPTH} levels is refused before anything recursive
 * (validation, a merge patch) walks it; a route without a body never reads one.
 */
@Injectable()
export class InputInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const spec = this.reflector.get<RouteSpec | undefined>(ROUTE_SPEC, ctx.getHandler());
    const req = ctx.switchToHttp().getRequest<RequestWithInput>();
    if (spec) {
      if (spec.body && nestedDeeperThan(req.body, MAX_BODY_DEPTH)) throw bodyTooDeep();
      const errors: FieldError[] = [];
      const params = check('params', spec.params, { ...req.params }, errors);
      const query = check('query', spec.query, { ...req.query }, errors);
      const body = spec.body ? check('body', spec.body, req.body, errors) : undefined;
      if (errors.length > 0) {
        throw new ProblemError(400, `invalid request: ${errors[0]!.path} ${errors[0]!.message}`, errors);
      }
      req.droverInput = { params, query, body };
    }
    return next.handle();
  }
}
