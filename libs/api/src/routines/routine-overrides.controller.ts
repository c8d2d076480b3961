import { Controller, Req } from '@nestjs/common';
import type { Request } from 'express';
import type { AuthenticatedRequest } from '../auth/principal';
import { ApiRoute, In } from '../http/api-route.decorator';
import { route, type RouteInput } from '../http/route-spec';
import { CandidateRankingSchema, ClearedOverridesSchema, OverrideListSchema, overrideBody } from './override-schemas';
import { nameParams, TriggerSchema } from './routine-schemas';
import { RoutineOverrides } from './routine-overrides.service';

type Req_ = Request & AuthenticatedRequest;
const NOT_SELECTOR = 'The routine is not a selector routine';

const addOverride = route({
  operationId: 'addOverride',
  method: 'POST',
  path: ':name/overrides',
  summary: "Serve a selector routine's candidate key next: a run before the automatic candidates",
  description:
    'The run (source `manual`, the key in its payload) goes before the candidates the provider ranks, also for a key the provider disabled or does not list. While an override for the key is queued or running, another is refused (409, naming that run).',
  tag: 'routines',
  role: 'operator',
  params: nameParams,
  body: overrideBody,
  responses: {
    201: { description: 'The override run', schema: TriggerSchema },
    409: { description: `${NOT_SELECTOR}, it is archived, or an override for the key is pending` },
  },
});

const listOverrides = route({
  operationId: 'listOverrides',
  method: 'GET',
  path: ':name/overrides',
  summary: "A selector routine's pending overrides (queued, scheduled or running), oldest first",
  tag: 'routines',
  role: 'viewer',
  params: nameParams,
  responses: {
    200: { description: 'Pending overrides', schema: OverrideListSchema },
    409: { description: NOT_SELECTOR },
  },
});

const clearOverrides = route({
  operationId: 'clearOverrides',
  method: 'DELETE',
  path: ':name/overrides',
  summary: "Cancel a selector routine's overrides that have not started",
  description:
    'Only overrides: the runs the automatic ticks chose are left alone, and so are overrides already running (cancel those with POST /runs/{id}/cancel).',
  tag: 'routines',
  role: 'operator',
  params: nameParams,
  responses: {
    200: { description: 'The runs canceled', schema: ClearedOverridesSchema },
    409: { description: NOT_SELECTOR },
  },
});

const listCandidates = route({
  operationId: 'listCandidates',
  method: 'GET',
  path: ':name/candidates',
  summary:
    "A dry run of a selector routine's tick: its provider's candidates as ranked, and why each would or would not be chosen",
  description:
    "A scheduler process asks the provider now (under the routine's `conditionTimeoutMs`, at most 30 s) and ranks the answer as a tick would, against the runs pending for its keys; nothing is enqueued and the idle backoff is left alone. Needs role operator: it runs the provider's code (which may call other services).",
  tag: 'routines',
  role: 'operator',
  params: nameParams,
  responses: {
    200: { description: 'The ranking (with `error` when the provider failed)', schema: CandidateRankingSchema },
    409: { description: NOT_SELECTOR },
    503: { description: 'No scheduler answered in time (Retry-After)' },
  },
});

@Controller('api/v1/routines')
export class RoutineOverridesController {
  constructor(private readonly overrides: RoutineOverrides) {}

  @ApiRoute(addOverride)
  async add(@In() { params, body }: RouteInput<typeof addOverride>, @Req() req: Req_) {
    return { runId: await this.overrides.add(params.name, body.key, req.principal!) };
  }

  @ApiRoute(listOverrides)
  list(@In() { params }: RouteInput<typeof listOverrides>) {
    return this.overrides.list(params.name);
  }

  @ApiRoute(clearOverrides)
  async clear(@In() { params }: RouteInput<typeof clearOverrides>) {
    return { cleared: await this.overrides.clear(params.name) };
  }

  @ApiRoute(listCandidates)
  candidates(@In() { params }: RouteInput<typeof listCandidates>) {
    return this.overrides.candidates(params.name);
  }
}
