import { Controller } from '@nestjs/common';
import { z } from 'zod';
import { Clock } from '@drover/redis';
import { OperationStore } from '@drover/store';
import { ApiRoute, In } from '../http/api-route.decorator';
import { isoOf, optIso } from '../http/api-time';
import { ProblemError } from '../http/problem';
import { route, type RouteInput } from '../http/route-spec';
import { parkedFilterAnswer } from './parked-filter';
import { OperationSchema } from './queue-schemas';

const getOperation = route({
  operationId: 'getOperation',
  method: 'GET',
  path: ':id',
  summary: 'A bulk operation (replay or purge of parked runs): status and progress',
  tag: 'queues',
  role: 'viewer',
  params: z.strictObject({ id: z.uuid({ message: 'is not an operation id' }) }),
  responses: {
    200: { description: 'The operation', schema: OperationSchema },
    404: { description: 'No such operation (or it ended more than a day ago)' },
  },
});

@Controller('api/v1/operations')
export class OperationsController {
  constructor(
    private readonly store: OperationStore,
    private readonly clock: Clock,
  ) {}

  @ApiRoute(getOperation)
  async get(@In() { params }: RouteInput<typeof getOperation>) {
    const op = await this.store.get(params.id, this.clock.now());
    if (!op) throw new ProblemError(404, `no operation "${params.id}" (operations are kept for a day after they end)`);
    const { filter, startedAt, heartbeatAt, finishedAt, ...rest } = op;
    return {
      ...rest,
      filter: parkedFilterAnswer(filter),
      startedAt: isoOf(startedAt),
      heartbeatAt: isoOf(heartbeatAt),
      ...optIso('finishedAt', finishedAt),
    };
  }
}
