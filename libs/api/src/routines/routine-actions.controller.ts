import { Controller, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { MAX_IDEMPOTENCY_KEY_LENGTH, parseIsoInstant, pauseRequestSchema } from '@drover/core';
import type { AuthenticatedRequest } from '../auth/principal';
import { ApiRoute, In } from '../http/api-route.decorator';
import { isoInstantInput, isoOf } from '../http/api-time';
import { ProblemError } from '../http/problem';
import { route, type RouteInput } from '../http/route-spec';
import { Clock } from '@drover/redis';
import { etagOf, idempotencyKeyOf } from './request-headers';
import { RoutineBackfill } from './routine-backfill.service';
import { BackfillSchema, nameParams, RoutineSchema, TriggerSchema } from './routine-schemas';
import { RoutinesService } from './routines.service';

type Req_ = Request & AuthenticatedRequest;
const ETAG = { ETag: 'The routine version, "<version>"' };

const pauseRoutine = route({
  operationId: 'pauseRoutine',
  method: 'POST',
  path: ':name/pause',
  summary: 'Pause a routine (optionally until an instant); its prepared runs do not start',
  tag: 'routines',
  role: 'operator',
  params: nameParams,
  body: pauseRequestSchema.optional(),
  responses: {
    200: { description: 'The paused routine', schema: RoutineSchema },
    409: { description: 'The routine is archived (unarchive it first)' },
  },
});

const resumeRoutine = route({
  operationId: 'resumeRoutine',
  method: 'POST',
  path: ':name/resume',
  summary: 'Resume a routine; slots it slept through are not caught up',
  tag: 'routines',
  role: 'operator',
  params: nameParams,
  responses: {
    200: { description: 'The resumed routine', schema: RoutineSchema },
    409: { description: 'The routine is archived (unarchive it first)' },
  },
});

const enableRoutine = route({
  operationId: 'enableRoutine',
  method: 'POST',
  path: ':name/enable',
  summary: 'Re-enable a routine its launcher disabled after maxLaunchFailures launch failures in a row',
  description:
    "Forgets the launcher's failures, backoff, last error and disable reason; the routine fires on its schedule again (slots missed while disabled follow its catch-up policy, as after downtime). A routine that is not disabled is answered as it is, its failure count cleared (200). A pause or an archive is not lifted: resume or unarchive it for that.",
  tag: 'routines',
  role: 'operator',
  params: nameParams,
  responses: { 200: { description: 'The routine, its launcher healthy again', schema: RoutineSchema, headers: ETAG } },
});

const archiveRoutine = route({
  operationId: 'archiveRoutine',
  method: 'POST',
  path: ':name/archive',
  summary: 'Archive a routine: it never fires, keeps its runs and history, and leaves default listings',
  description:
    'Its armed runs are withdrawn; manual triggers, backfills, pause and resume answer 409 until it is unarchived; edits keep it archived (a `PUT` without `status` too); an apply of the policy file does not unarchive it. Archiving an archived routine changes nothing (200). Archiving a `system` routine needs role admin.',
  tag: 'routines',
  role: 'operator',
  params: nameParams,
  responses: { 200: { description: 'The archived routine', schema: RoutineSchema, headers: ETAG } },
});

const unarchiveRoutine = route({
  operationId: 'unarchiveRoutine',
  method: 'POST',
  path: ':name/unarchive',
  summary: 'Unarchive a routine: it is active again; slots it slept through are not caught up',
  description:
    'A routine that is not archived is answered as it is (200). Unarchiving a `system` routine needs role admin.',
  tag: 'routines',
  role: 'operator',
  params: nameParams,
  responses: { 200: { description: 'The routine, active again', schema: RoutineSchema, headers: ETAG } },
});

const triggerRoutine = route({
  operationId: 'triggerRoutine',
  method: 'POST',
  path: ':name/trigger',
  summary: 'Run a routine now (also when paused)',
  description:
    'With `Idempotency-Key`, repeated calls (concurrent ones too) answer the same run and make one. ' +
    "Replacing a `system` routine's payload needs role admin; a trigger without `payload` is an operator's.",
  tag: 'routines',
  role: 'operator',
  params: nameParams,
  headers: {
    'Idempotency-Key': `Same key, same run (1-${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters): one run however often the call is made`,
  },
  body: z.strictObject({ payload: z.unknown().optional() }).optional(),
  responses: {
    201: { description: 'The run', schema: TriggerSchema },
    409: { description: "Archived routine, or the key is bound to another routine's run" },
  },
});

const backfillRoutine = route({
  operationId: 'backfillRoutine',
  method: 'POST',
  path: ':name/backfill',
  summary: "One run per slot in (from, to], capped by the routine's maxCatchUp (the newest slots)",
  description:
    "Idempotent per slot: a slot that already has a run (the scheduler's or an earlier backfill's) is listed under `existing`. `to` may not be in the future. " +
    '`dryRun: true` answers the same lists (`created`: the runs it would create) and writes nothing: the preview of what a backfill will run.',
  tag: 'routines',
  role: 'operator',
  params: nameParams,
  body: z.strictObject({
    from: isoInstantInput,
    to: isoInstantInput,
    dryRun: z.boolean().optional().describe('Answer what would run, write nothing'),
  }),
  responses: {
    200: { description: 'Nothing new (every slot had its run already), or a dry run', schema: BackfillSchema },
    201: { description: 'Runs created', schema: BackfillSchema },
    409: { description: 'Archived or selector routine' },
  },
});

@Controller('api/v1/routines')
export class RoutineActionsController {
  constructor(
    private readonly routines: RoutinesService,
    private readonly backfills: RoutineBackfill,
    private readonly clock: Clock,
  ) {}

  @ApiRoute(pauseRoutine)
  async pause(
    @In() { params, body }: RouteInput<typeof pauseRoutine>,
    @Req() req: Req_,
    @Res({ passthrough: true }) res: Response,
  ) {
    const routine = await this.routines.pause(params.name, body ?? {}, req.principal!);
    res.setHeader('ETag', etagOf(routine.version));
    return routine;
  }

  @ApiRoute(resumeRoutine)
  async resume(
    @In() { params }: RouteInput<typeof resumeRoutine>,
    @Req() req: Req_,
    @Res({ passthrough: true }) res: Response,
  ) {
    const routine = await this.routines.resume(params.name, req.principal!);
    res.setHeader('ETag', etagOf(routine.version));
    return routine;
  }

  @ApiRoute(enableRoutine)
  async enable(@In() { params }: RouteInput<typeof enableRoutine>, @Res({ passthrough: true }) res: Response) {
    const routine = await this.routines.enable(params.name);
    res.setHeader('ETag', etagOf(routine.version));
    return routine;
  }

  @ApiRoute(archiveRoutine)
  async archive(
    @In() { params }: RouteInput<typeof archiveRoutine>,
    @Req() req: Req_,
    @Res({ passthrough: true }) res: Response,
  ) {
    const routine = await this.routines.archive(params.name, 'archive', req.principal!);
    res.setHeader('ETag', etagOf(routine.version));
    return routine;
  }

  @ApiRoute(unarchiveRoutine)
  async unarchive(
    @In() { params }: RouteInput<typeof unarchiveRoutine>,
    @Req() req: Req_,
    @Res({ passthrough: true }) res: Response,
  ) {
    const routine = await this.routines.archive(params.name, 'unarchive', req.principal!);
    res.setHeader('ETag', etagOf(routine.version));
    return routine;
  }

  @ApiRoute(triggerRoutine)
  async trigger(@In() { params, body }: RouteInput<typeof triggerRoutine>, @Req() req: Req_) {
    const key = idempotencyKeyOf(req);
    return { runId: await this.routines.trigger(params.name, body?.payload, key, req.principal!) };
  }

  @ApiRoute(backfillRoutine)
  async backfill(
    @In() { params, body }: RouteInput<typeof backfillRoutine>,
    @Req() req: Req_,
    @Res({ passthrough: true }) res: Response,
  ) {
    const from = parseIsoInstant(body.from)!;
    const to = parseIsoInstant(body.to)!;
    const now = this.clock.now();
    if (to <= from) throw field('body.to', `must be after from (${body.from})`);
    if (to > now) throw field('body.to', `must not be in the future (now is ${isoOf(now)})`);
    const rec = await this.routines.require(params.name);
    const result = await this.backfills.backfill(rec.def, from, to, req.principal!, body.dryRun === true);
    res.status(result.created.length > 0 && !body.dryRun ? 201 : 200);
    return result;
  }
}

function field(path: string, message: string): ProblemError {
  return new ProblemError(400, `invalid request: ${path} ${message}`, [{ path, message }]);
}
