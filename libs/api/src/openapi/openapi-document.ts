import type { Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { z } from 'zod';
import { ANSWERED_CODES } from '../http/error-answers';
import type { Problem } from '../http/problem';
import { ROUTE_SPEC, isMutating, type RouteSpec } from '../http/route-spec';
import { JSON_TYPES } from '../http/configure-http';
import { apiSchemas } from './api-schemas';

type JsonSchema = Record<string, unknown>;

const SCHEMA_REF = (id: string) => `#/components/schemas/${id}`;

/** A route as found on a controller: its full path and spec. */
export interface FoundRoute {
  path: string;
  spec: RouteSpec;
}

/** Every `@ApiRoute` method of the given controller classes. */
export function routesOf(controllers: Type[]): FoundRoute[] {
  const out: FoundRoute[] = [];
  for (const ctrl of controllers) {
    const base = String(Reflect.getMetadata(PATH_METADATA, ctrl) ?? '');
    const proto = ctrl.prototype as Record<string, unknown>;
    for (const key of Object.getOwnPropertyNames(proto)) {
      const method = proto[key];
      if (typeof method !== 'function') continue;
      const spec = Reflect.getMetadata(ROUTE_SPEC, method) as RouteSpec | undefined;
      if (!spec) continue;
      const path = ['', base, spec.path].join('/').replace(/\/+/g, '/').replace(/\/$/, '');
      out.push({ path, spec });
    }
  }
  return out;
}

function strip(schema: JsonSchema): JsonSchema {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

function inline(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const id = apiSchemas.get(schema)?.id;
  if (id && io === 'output') return { $ref: SCHEMA_REF(id) };
  // An empty registry: no ids, so every part is inlined and nothing refers to a local $defs.
  return strip(z.toJSONSchema(schema, { io, metadata: z.registry(), unrepresentable: 'any' }) as JsonSchema);
}

const problemSchema: JsonSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: {
      type: 'string',
      enum: ANSWERED_CODES,
      description: 'The stable code of the Drover error this answer is (docs/errors.md); absent for other answers.',
    },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
} satisfies JsonSchema & { properties: Record<keyof Problem, unknown> };

const PROBLEM_CONTENT = { 'application/problem+json': { schema: { $ref: SCHEMA_REF('Problem') } } };

/** What a write answers while Redis is at its memory limit (docs/errors.md, `redis-out-of-memory`). */
const REDIS_REFUSED = {
  description:
    'Redis refused the write: it is at its memory limit (maxmemory, noeviction; code `redis-out-of-memory`), or with `DROVER_REDIS_WAIT_REPLICAS` too few replicas acknowledged it in time (code `redis-not-replicated`). The write does not count: retry after `Retry-After` seconds',
  headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'string' } } },
  content: PROBLEM_CONTENT,
};

/** Errors every route may answer, by what it does. */
function commonErrors(spec: RouteSpec): number[] {
  const codes = [500];
  if (spec.role !== 'none') codes.push(401, 403);
  // A name or id in the path may name nothing.
  if (spec.params) codes.push(404);
  if (spec.params || spec.query || spec.body) codes.push(400);
  // Mutations: the per-token rate limit; any authenticated route: the per-address limit on refusals.
  if (isMutating(spec.method) || spec.role !== 'none') codes.push(429);
  if (spec.body) codes.push(413, 415);
  return codes;
}

function parametersOf(spec: RouteSpec, path: string): JsonSchema[] {
  const params: JsonSchema[] = [];
  const objectShape = (s: z.ZodType | undefined) => {
    if (!s) return {};
    const js = inline(s, 'input');
    return { props: (js.properties ?? {}) as Record<string, JsonSchema>, required: (js.required ?? []) as string[] };
  };
  const p = objectShape(spec.params);
  for (const name of [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)) {
    params.push({ name, in: 'path', required: true, schema: p.props?.[name] ?? { type: 'string' } });
  }
  const q = objectShape(spec.query);
  for (const [name, schema] of Object.entries(q.props ?? {})) {
    params.push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema });
  }
  for (const [name, description] of Object.entries(spec.headers ?? {})) {
    params.push({ name, in: 'header', required: false, description, schema: { type: 'string' } });
  }
  return params;
}

/**
 * The OpenAPI 3.1 document of the routes, generated from the same specs that route, guard and
 * validate them, so it cannot drift from what the server does.
 */
export function buildOpenApiDocument(routes: FoundRoute[], info: { version: string }): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { path, spec } of routes) {
    const oasPath = path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const responses: Record<string, unknown> = {};
    for (const [code, r] of Object.entries(spec.responses)) {
      const type = r.contentType ?? 'application/json';
      responses[code] = {
        description: r.description,
        ...(r.headers && {
          headers: Object.fromEntries(
            Object.entries(r.headers).map(([h, d]) => [h, { description: d, schema: { type: 'string' } }]),
          ),
        }),
        ...(r.schema || type !== 'application/json'
          ? { content: { [type]: { schema: r.schema ? inline(r.schema, 'output') : { type: 'string' } } } }
          : // An error declared by its description alone (`404: {description}`) is a problem document too.
            Number(code) >= 400
            ? { content: PROBLEM_CONTENT }
            : {}),
      };
    }
    for (const code of commonErrors(spec)) {
      responses[String(code)] ??= { description: 'A problem (RFC 9457)', content: PROBLEM_CONTENT };
    }
    if (isMutating(spec.method)) responses['503'] ??= REDIS_REFUSED;
    const op: Record<string, unknown> = {
      operationId: spec.operationId,
      summary: spec.summary,
      ...(spec.description && { description: spec.description }),
      tags: [spec.tag],
      security: spec.role === 'none' ? [] : [{ bearer: [] }, { session: [] }],
      'x-drover-role': spec.role,
      parameters: parametersOf(spec, oasPath),
      responses,
    };
    if (spec.body) {
      const schema = inline(spec.body, 'input');
      const types = spec.method === 'PATCH' ? ['application/merge-patch+json', 'application/json'] : [JSON_TYPES[0]!];
      op.requestBody = {
        required: true,
        content: Object.fromEntries([
          ...types.map((t) => [t, { schema }]),
          ...(spec.bodyTypes ?? []).map((t) => [t, { schema: { type: 'string' } }]),
        ]),
      };
    }
    (paths[oasPath] ??= {})[spec.method.toLowerCase()] = op;
  }
  const named = z.toJSONSchema(apiSchemas, { io: 'output', uri: SCHEMA_REF, unrepresentable: 'any' }) as {
    schemas: Record<string, JsonSchema>;
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Drover management API',
      version: info.version,
      description:
        'Operate a Drover cluster: routines, runs, queues, parked runs, the plan and the cluster. Errors are application/problem+json. See docs/api.md.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/' }],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A token from DROVER_API_TOKENS_FILE' },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'drover_session',
          description:
            "The web console's session (POST /api/v1/session); named __Host-drover_session when Secure (TLS or a trusted proxy's https); mutating requests also need X-Drover-CSRF",
        },
      },
      schemas: {
        Problem: problemSchema,
        ...Object.fromEntries(Object.entries(named.schemas).map(([k, v]) => [k, strip(v)])),
      },
    },
  };
}
