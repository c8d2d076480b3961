import type { ApiRole } from '@drover/config';
import type { z } from 'zod';

/** Metadata key of a route's {@link RouteSpec}. */
export const ROUTE_SPEC = 'drover:api-route';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** How a route answers one status: a JSON schema, an event stream, or nothing. */
export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Default `application/json`; `text/event-stream` for SSE routes. */
  contentType?: string;
  /** Response headers worth documenting (name → description). */
  headers?: Record<string, string>;
}

/**
 * One API route, declared once: Nest routes it, the guard checks its role, the input interceptor
 * validates with its schemas, and the OpenAPI document is generated from it, so none can drift.
 */
export interface RouteSpec<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  operationId: string;
  method: HttpMethod;
  /** Relative to the controller, Nest syntax (`:name/pause`). */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** Minimum role; `none` for public routes (the OpenAPI document). */
  role: ApiRole | 'none';
  params?: P;
  query?: Q;
  body?: B;
  /** Body media types besides JSON (e.g. YAML for apply). */
  bodyTypes?: string[];
  /** Request headers the route reads (name → description), e.g. `If-Match`, `Idempotency-Key`. */
  headers?: Record<string, string>;
  responses: Record<number, ResponseSpec>;
}

/** What a route's handler receives once its input passed validation (unknown for parts it lacks). */
export type RouteInput<S> =
  S extends RouteSpec<infer P, infer Q, infer B>
    ? { params: z.output<P>; query: z.output<Q>; body: z.output<B> }
    : never;

/** Declares a route (keeps the literal types of its schemas for {@link RouteInput}). */
export function route<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  spec: RouteSpec<P, Q, B>,
): RouteSpec<P, Q, B> {
  return spec;
}

export const isMutating = (method: HttpMethod): boolean => method !== 'GET';

/** The status a route answers when its handler does not set one: its lowest documented 2xx. */
export function successStatus(spec: RouteSpec): number {
  const ok = Object.keys(spec.responses)
    .map(Number)
    .filter((s) => s >= 200 && s < 300)
    .sort((a, b) => a - b);
  return ok[0] ?? 200;
}
