import { Controller } from '@nestjs/common';
import { z } from 'zod';
import { nameSchema } from '@drover/core';
import { Clock } from '@drover/redis';
import { ApiEvents } from '@drover/store';
import { ApiRoute, In } from '../http/api-route.decorator';
import { isoOf } from '../http/api-time';
import { route, type RouteInput } from '../http/route-spec';
import { named } from '../openapi/api-schemas';
import { QueueSchema } from './queue-schemas';
import { QueueViews } from './queue-views.service';

const queueParams = z.strictObject({ name: nameSchema });
const notFound = { description: 'No such queue' };

const listQueues = route({
  operationId: 'listQueues',
  method: 'GET',
  path: '',
  summary: 'Every queue: policy, paused, counts per state, consuming workers',
  tag: 'queues',
  role: 'viewer',
  responses: {
    200: { description: 'The queues, by name', schema: named('QueueList', z.object({ items: z.array(QueueSchema) })) },
  },
});

const getQueue = route({
  operationId: 'getQueue',
  method: 'GET',
  path: ':name',
  summary: 'One queue: policy, paused, counts per state, consuming workers',
  tag: 'queues',
  role: 'viewer',
  params: queueParams,
  responses: { 200: { description: 'The queue', schema: QueueSchema }, 404: notFound },
});

const pauseQueue = route({
  operationId: 'pauseQueue',
  method: 'POST',
  path: ':name/pause',
  summary: 'Stop handing out the runs of a queue (every worker; running runs finish)',
  tag: 'queues',
  role: 'operator',
  params: queueParams,
  responses: { 200: { description: 'The queue, now paused', schema: QueueSchema }, 404: notFound },
});

const resumeQueue = route({
  operationId: 'resumeQueue',
  method: 'POST',
  path: ':name/resume',
  summary: 'Hand out the runs of a paused queue again',
  tag: 'queues',
  role: 'operator',
  params: queueParams,
  responses: { 200: { description: 'The queue, no longer paused', schema: QueueSchema }, 404: notFound },
});

@Controller('api/v1/queues')
export class QueuesController {
  constructor(
    private readonly queues: QueueViews,
    private readonly events: ApiEvents,
    private readonly clock: Clock,
  ) {}

  @ApiRoute(listQueues)
  async list() {
    return { items: await this.queues.list() };
  }

  @ApiRoute(getQueue)
  get(@In() { params }: RouteInput<typeof getQueue>) {
    return this.queues.get(params.name);
  }

  @ApiRoute(pauseQueue)
  pause(@In() { params }: RouteInput<typeof pauseQueue>) {
    return this.setPaused(params.name, true);
  }

  @ApiRoute(resumeQueue)
  resume(@In() { params }: RouteInput<typeof resumeQueue>) {
    return this.setPaused(params.name, false);
  }

  private async setPaused(name: string, paused: boolean) {
    const view = await this.queues.setPaused(name, paused);
    await this.events.publish({
      kind: 'queue',
      action: paused ? 'paused' : 'resumed',
      id: name,
      at: isoOf(this.clock.now()),
    });
    return view;
  }
}
