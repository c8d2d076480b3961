import { Controller, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { nameSchema } from '@drover/core';
import type { AuthenticatedRequest, Principal } from '../auth/principal';
import { ApiRoute, In } from '../http/api-route.decorator';
import { route, type RouteInput } from '../http/route-spec';
import { decodePageToken } from './page-token';
import { etagOf, ifMatchOf } from './request-headers';
import { LIST_STATUSES, RoutineListing } from './routine-listing.service';
import { nameParams, routineBody, routinePutBody, RoutinePageSchema, RoutineSchema } from './routine-schemas';
import { RoutinesService, type WriteOutcome } from './routines.service';

type Req_ = Request & AuthenticatedRequest;
const principal = (req: Req_): Principal => req.principal!;

const IF_MATCH = {
  'If-Match':
    'The routine\'s ETag ("<version>"), a list of ETags, or *: write only if it is still that version (else 412, also for a tag this api never made)',
};
const SYSTEM_RULE = 'A `system` routine — as stored or as written — is changed by admins only (403 for others).';
const ETAG = { ETag: 'The routine version, "<version>"' };

const listRoutines = route({
  operationId: 'listRoutines',
  method: 'GET',
  path: '',
  summary: 'Routines, ordered by name, with cursor paging and filters',
  description:
    '`status`: active (and not disabled), paused, archived, or disabled (stopped after repeated launch failures). Archived routines are left out unless `status=archived` or `include=archived`. `label`: `key=value`.',
  tag: 'routines',
  role: 'viewer',
  query: z.strictObject({
    queue: nameSchema.optional(),
    status: z.enum(LIST_STATUSES).optional(),
    include: z.enum(['archived']).optional(),
    label: z
      .string()
      .regex(/^[^=]+=/, { message: 'must be key=value, e.g. team=payments' })
      .optional(),
    page_size: z.coerce.number().int().min(1).max(1000).default(100),
    page_token: z
      .string()
      .refine((t) => decodePageToken(t) !== undefined, { message: 'is not a page token from next_page_token' })
      .optional(),
  }),
  responses: { 200: { description: 'A page of routines', schema: RoutinePageSchema } },
});

const createRoutine = route({
  operationId: 'createRoutine',
  method: 'POST',
  path: '',
  summary: 'Create a routine (409 if the name exists)',
  description: 'Creating a `system: true` routine needs role admin.',
  tag: 'routines',
  role: 'operator',
  body: routineBody,
  responses: {
    201: { description: 'Created', schema: RoutineSchema, headers: { Location: 'The routine', ...ETAG } },
    409: { description: 'A routine with this name exists' },
  },
});

const getRoutine = route({
  operationId: 'getRoutine',
  method: 'GET',
  path: ':name',
  summary: 'One routine: definition, origin, drift, pause, next fire, last run',
  tag: 'routines',
  role: 'viewer',
  params: nameParams,
  responses: { 200: { description: 'The routine', schema: RoutineSchema, headers: ETAG } },
});

const putRoutine = route({
  operationId: 'putRoutine',
  method: 'PUT',
  path: ':name',
  summary: 'Create or replace a routine',
  description:
    'The body is the whole definition (omitted fields take their defaults, except `system`, and `status` of an archived routine: omitted, the stored value stays). Editing a file routine marks it drifted until the next apply. ' +
    SYSTEM_RULE,
  tag: 'routines',
  role: 'operator',
  params: nameParams,
  headers: IF_MATCH,
  body: routinePutBody,
  responses: {
    200: { description: 'Replaced (or unchanged)', schema: RoutineSchema, headers: ETAG },
    201: { description: 'Created', schema: RoutineSchema, headers: { Location: 'The routine', ...ETAG } },
    412: { description: 'If-Match names another version, or the routine changed while writing' },
  },
});

const patchRoutine = route({
  operationId: 'patchRoutine',
  method: 'PATCH',
  path: ':name',
  summary: 'Change a routine with a JSON merge patch (RFC 7396; null removes a field)',
  description: SYSTEM_RULE,
  tag: 'routines',
  role: 'operator',
  params: nameParams,
  headers: IF_MATCH,
  body: z.record(z.string(), z.unknown()),
  responses: {
    200: { description: 'Patched (or unchanged)', schema: RoutineSchema, headers: ETAG },
    412: { description: 'If-Match names another version, or the routine changed while patching' },
  },
});

const deleteRoutine = route({
  operationId: 'deleteRoutine',
  method: 'DELETE',
  path: ':name',
  summary: 'Delete a routine; its prepared runs never start (system routines: admin only)',
  tag: 'routines',
  role: 'operator',
  params: nameParams,
  headers: IF_MATCH,
  responses: {
    204: { description: 'Deleted' },
    412: { description: 'If-Match names another version, or the routine changed while deleting' },
  },
});

@Controller('api/v1/routines')
export class RoutinesController {
  constructor(
    private readonly routines: RoutinesService,
    private readonly listing: RoutineListing,
  ) {}

  @ApiRoute(listRoutines)
  list(@In() { query }: RouteInput<typeof listRoutines>) {
    const at = query.label?.indexOf('=') ?? -1;
    return this.listing.list({
      queue: query.queue,
      status: query.status,
      includeArchived: query.include === 'archived',
      label: query.label ? { key: query.label.slice(0, at), value: query.label.slice(at + 1) } : undefined,
      pageSize: query.page_size,
      after: query.page_token === undefined ? undefined : decodePageToken(query.page_token),
    });
  }

  @ApiRoute(createRoutine)
  async create(
    @In() { body }: RouteInput<typeof createRoutine>,
    @Req() req: Req_,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.answer(res, await this.routines.create(body, principal(req)));
  }

  @ApiRoute(getRoutine)
  async get(@In() { params }: RouteInput<typeof getRoutine>, @Res({ passthrough: true }) res: Response) {
    const routine = await this.routines.view(params.name);
    res.setHeader('ETag', etagOf(routine.version));
    // The ETag is the definition's version (for If-Match); the answer also carries state that moves
    // without it (launcher health, last run, next fire): never cached, never answered 304 by version.
    res.setHeader('Cache-Control', 'no-store');
    return routine;
  }

  @ApiRoute(putRoutine)
  async put(
    @In() { params, body }: RouteInput<typeof putRoutine>,
    @Req() req: Req_,
    @Res({ passthrough: true }) res: Response,
  ) {
    // The validated body has every default filled in: whether `system` was sent is the raw body's to say.
    const raw: unknown = req.body;
    const given = (key: string) => typeof raw === 'object' && raw !== null && Object.hasOwn(raw, key);
    return this.answer(
      res,
      await this.routines.put(params.name, body, ifMatchOf(req), principal(req), given('system'), given('status')),
    );
  }

  @ApiRoute(patchRoutine)
  async patch(
    @In() { params, body }: RouteInput<typeof patchRoutine>,
    @Req() req: Req_,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.answer(res, await this.routines.patch(params.name, body, ifMatchOf(req), principal(req)));
  }

  @ApiRoute(deleteRoutine)
  async remove(@In() { params }: RouteInput<typeof deleteRoutine>, @Req() req: Req_): Promise<void> {
    await this.routines.remove(params.name, ifMatchOf(req), principal(req));
  }

  private answer(res: Response, { outcome, routine }: WriteOutcome) {
    if (outcome === 'created') {
      res.status(201);
      res.setHeader('Location', `/api/v1/routines/${routine.name}`);
    }
    res.setHeader('ETag', etagOf(routine.version));
    return routine;
  }
}
