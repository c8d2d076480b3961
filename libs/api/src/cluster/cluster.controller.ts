import { Controller } from '@nestjs/common';
import { z } from 'zod';
import { ApiRoute } from '../http/api-route.decorator';
import { isoSchema as iso } from '../http/api-time';
import { route } from '../http/route-spec';
import { named } from '../openapi/api-schemas';
import { ClusterView } from './cluster-view.service';

const processFields = {
  instanceId: z.string(),
  version: z.string(),
  pid: z.number().int(),
  hostname: z.string(),
  startedAt: iso,
  heartbeatAt: iso,
};

const ClusterSchema = named(
  'Cluster',
  z.object({
    now: iso,
    leader: z
      .object({
        instance: z.string(),
        epoch: z.number().int(),
        since: iso.optional().describe('When it was elected (absent until its scheduler announced it)'),
        leaseExpiresInMs: z.number().int(),
      })
      .nullable()
      .describe('null: no scheduler holds the lease right now'),
    schedulers: z.array(z.object({ ...processFields, leader: z.boolean() })),
    workers: z.array(
      z.object({
        ...processFields,
        draining: z.boolean(),
        queues: z.array(z.object({ name: z.string(), concurrency: z.number().int() })),
        jobTypes: z.array(z.string()),
      }),
    ),
    apis: z.array(z.object({ ...processFields, self: z.boolean().describe('The process that answered') })),
  }),
  'Every live process of the cluster; a process that stops refreshing its entry ' + 'disappears within 15 s.',
);

const getCluster = route({
  operationId: 'getCluster',
  method: 'GET',
  path: 'cluster',
  summary: 'Leader (instance, epoch), schedulers, workers (queues, handlers, heartbeat), api instances',
  tag: 'cluster',
  role: 'viewer',
  responses: { 200: { description: 'The cluster', schema: ClusterSchema } },
});

@Controller('api/v1')
export class ClusterController {
  constructor(private readonly view: ClusterView) {}

  @ApiRoute(getCluster)
  get() {
    return this.view.read();
  }
}
