import { Controller, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { ApiRoute, In } from '../../../../libs/api/src/http/api-route.decorator';
import { ProblemError } from '../../../../libs/api/src/http/problem';
import { route, type RouteInput } from '../../../../libs/api/src/http/route-spec';
import { named } from '../../../../libs/api/src/openapi/api-schemas';

/**
 * Test-only routes for the fuzzer's own test (fuzz-harness.e2e-spec.ts), declared like real
 * ones: an honest mutating route and an event stream it must pass, and four with planted bugs
 * it must find. Never mounted by an app.
 */
const Thing = named(
  'FuzzThing',
  z.object({ name: z.string(), count: z.number().int(), note: z.string().optional(), at: z.string().optional() }),
);

export const putThing = route({
  operationId: 'fuzzPutThing',
  method: 'POST',
  path: 'things/:name',
  summary: 'An honest mutating route: params, query, a header and a strict body',
  tag: 'fuzz',
  role: 'operator',
  params: z.strictObject({ name: z.string().regex(/^[a-z][a-z0-9-]{0,62}$/) }),
  query: z.strictObject({ dryRun: z.enum(['true', 'false']).optional() }),
  headers: { 'Idempotency-Key': 'any string' },
  body: z.strictObject({
    count: z.number().int().min(0).max(100),
    note: z.string().max(200).optional(),
    at: z.iso.datetime().optional(),
  }),
  responses: { 200: { description: 'The thing', schema: Thing }, 404: { description: 'No such thing' } },
});

export const crash = route({
  operationId: 'fuzzCrash',
  method: 'POST',
  path: 'crash',
  summary: 'Planted bug: a 500 when the optional note is missing',
  tag: 'fuzz',
  role: 'operator',
  body: z.object({ note: z.string().optional() }),
  responses: { 200: { description: 'Its length', schema: z.object({ length: z.number() }) } },
});

export const liar = route({
  operationId: 'fuzzLiar',
  method: 'GET',
  path: 'liar',
  summary: 'Planted bug: an answer that does not match its schema for odd n',
  tag: 'fuzz',
  role: 'viewer',
  query: z.strictObject({ n: z.coerce.number().int().min(0).max(9).optional() }),
  responses: { 200: { description: 'A count', schema: z.object({ count: z.number() }) } },
});

export const undocumented = route({
  operationId: 'fuzzUndocumented',
  method: 'DELETE',
  path: 'things/:name',
  summary: 'Planted bug: a 409 it does not document',
  tag: 'fuzz',
  role: 'operator',
  params: z.strictObject({ name: z.string() }),
  responses: { 204: { description: 'Deleted' } },
});

export const stream = route({
  operationId: 'fuzzStream',
  method: 'GET',
  path: 'stream',
  summary: 'An event stream that never ends by itself',
  tag: 'fuzz',
  role: 'viewer',
  responses: { 200: { description: 'Events', contentType: 'text/event-stream' } },
});

export const silent = route({
  operationId: 'fuzzSilent',
  method: 'GET',
  path: 'silent',
  summary: 'Planted bug: an event stream that never sends its head',
  tag: 'fuzz',
  role: 'viewer',
  responses: { 200: { description: 'Events', contentType: 'text/event-stream' } },
});

@Controller('api/v1/fuzz-target')
export class FuzzTargetController {
  @ApiRoute(putThing)
  put(@In() { params, body }: RouteInput<typeof putThing>) {
    if (params.name === 'missing') throw new ProblemError(404, `no thing "${params.name}"`);
    return { name: params.name, ...body };
  }

  @ApiRoute(crash)
  crash(@In() { body }: RouteInput<typeof crash>) {
    return { length: body.note!.length };
  }

  @ApiRoute(liar)
  liar(@In() { query }: RouteInput<typeof liar>) {
    const n = query.n ?? 0;
    return { count: n % 2 ? 'many' : n };
  }

  @ApiRoute(undocumented)
  remove(@In() { params }: RouteInput<typeof undocumented>) {
    if (params.name.length > 3) throw new ProblemError(409, 'it is in use');
  }

  @ApiRoute(stream)
  events(@Req() req: Request, @Res() res: Response) {
    res.status(200).setHeader('Content-Type', 'text/event-stream');
    res.flushHeaders();
    res.write('event: hello\ndata: {}\n\n');
    const timer = setInterval(() => res.write(': keep-alive\n\n'), 1_000);
    req.on('close', () => clearInterval(timer));
  }

  @ApiRoute(silent)
  silent(@Res() _res: Response) {
    // Never answers: the fuzzer's call timeout must end the case.
  }
}
