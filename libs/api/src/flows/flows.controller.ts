import { Controller, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { AuthenticatedRequest } from '../auth/principal';
import { ApiRoute, In } from '../http/api-route.decorator';
import { route, type RouteInput } from '../http/route-spec';
import { named } from '../openapi/api-schemas';
import { JobEnqueue } from '../runs/job-enqueue.service';
import { createFlowBody } from './flow-schemas';

const createFlow = route({
  operationId: 'createFlow',
  method: 'POST',
  path: '',
  summary: 'Enqueue a flow: a run that starts once the runs it waits for (its children, on any queues) finished',
  description:
    '`runs[0]` is the top run; every other run names its parent by the index of an earlier run, so a child may have ' +
    'children of its own. A parent starts once every child finished: succeeded, canceled, or parked with ' +
    '`onFailure: ignore`; a child parked with `onFailure: fail` (the default) parks its parent without running it ' +
    '(`reason: child-failed`). Canceling a parent cancels its children that have not ended. Every run is checked and ' +
    'the whole flow written in one transaction: a bad run is a 400 naming it, and nothing is written. A parent takes ' +
    'no delay and no approval gate; no run of a flow may be on a queue with concurrency keys; on Redis Cluster every ' +
    "run is on the top run's queue.",
  tag: 'runs',
  role: 'operator',
  body: createFlowBody,
  responses: {
    201: {
      description: 'The flow exists; its top run waits for its children',
      schema: named(
        'CreatedFlow',
        z.object({
          id: z.string().meta({ description: 'The top run' }),
          runs: z.array(z.string()).meta({ description: 'Every run id, in the order of `runs` in the request' }),
        }),
      ),
      headers: { Location: 'The top run: /api/v1/runs/{id}' },
    },
  },
});

@Controller('api/v1/flows')
export class FlowsController {
  constructor(private readonly jobs: JobEnqueue) {}

  @ApiRoute(createFlow)
  async create(
    @In() { body }: RouteInput<typeof createFlow>,
    @Req() req: Request & AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ id: string; runs: string[] }> {
    const runs = await this.jobs.enqueueFlow(body.runs, req.principal!);
    res.setHeader('Location', `/api/v1/runs/${encodeURIComponent(runs[0]!)}`);
    return { id: runs[0]!, runs };
  }
}
